import Foundation

extension Coordinate {
  /// The closest approach of the great-circle segment `start → end` to `self`.
  ///
  /// Cross-track and along-track distances from Ed Williams, "Aviation Formulary" (also
  /// C. Veness, "Calculate distance, bearing and more between Latitude/Longitude points"):
  /// δxt = asin(sin δ13 · sin(θ13 − θ12)) and δat = acos(cos δ13 / cos δxt), on the sphere of
  /// `Earth.meanRadiusMeters`. When the foot of the perpendicular falls outside the segment the
  /// nearer endpoint is the closest point.
  ///
  /// - Returns: The distance in metres and the fraction of the segment (0 at `start`, 1 at
  ///   `end`) where it is reached.
  /// - Complexity: O(1): three distances and two bearings.
  package func closestApproach(onSegmentFrom start: Coordinate, to end: Coordinate) -> (
    distanceMeters: Double, fraction: Double
  ) {
    let d13 = start.centralAngleRadians(to: self)
    let d12 = start.centralAngleRadians(to: end)
    let distanceToEnd = end.distance(to: self)
    if d12 == 0 { return (d13 * Earth.meanRadiusMeters, 0) }
    let theta13 = start.initialBearingDegrees(to: self) * radiansPerDegree
    let theta12 = start.initialBearingDegrees(to: end) * radiansPerDegree
    let delta = theta13 - theta12
    if cos(delta) <= 0 {
      // Behind the start: the start is the nearest point of the segment.
      let atStart = d13 * Earth.meanRadiusMeters
      return atStart <= distanceToEnd ? (atStart, 0) : (distanceToEnd, 1)
    }
    let dxt = asin(min(1, max(-1, sin(d13) * sin(delta))))
    let cosXt = cos(dxt)
    let dat = cosXt == 0 ? 0 : acos(min(1, max(-1, cos(d13) / cosXt)))
    if dat >= d12 { return (distanceToEnd, 1) }
    return (abs(dxt) * Earth.meanRadiusMeters, dat / d12)
  }
}
