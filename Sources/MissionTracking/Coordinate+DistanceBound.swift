extension Coordinate {
  /// An upper bound of `distance(to:)` in metres without trigonometry per call: the length of
  /// the path along this point's parallel and then along the other's meridian, which no
  /// great circle exceeds. `cosLatitude` is `cos(latitude)`, cached by the caller.
  ///
  /// Used to skip the haversine when the answer is certain (a fix well within the distance
  /// filter, a jump far below the outlier speed).
  @inline(__always)
  package func distanceUpperBound(to other: Coordinate, cosLatitude: Double) -> Double {
    let deltaLat = abs(other.latitude - latitude)
    let deltaLon = abs(longitudeDifference(from: longitude, to: other.longitude))
    let bound =
      (deltaLat + deltaLon * max(0, cosLatitude)) * radiansPerDegree * Earth.meanRadiusMeters
    // Covers the rounding of the haversine, which is far below a micrometre here.
    return bound * (1 + 1e-9) + 1e-6
  }
}
