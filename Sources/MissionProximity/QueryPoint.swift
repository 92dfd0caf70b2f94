import Foundation

/// A query centre with the terms of the haversine formula that depend on it precomputed.
///
/// `distance(toLatitude:longitude:)` evaluates exactly the expression of
/// `Coordinate.distance(to:)` (same operations, same order, no fused multiply-add), so it is
/// bit-identical to it; only `cos(φ1)` is hoisted out of the loop. A test pins this.
struct QueryPoint {
  /// Latitude in degrees.
  let latitude: Double
  /// Longitude in degrees, as given.
  let longitude: Double
  /// Latitude in radians.
  let phi: Double
  /// cos(latitude).
  let cosPhi: Double

  init(_ coordinate: Coordinate) {
    latitude = coordinate.latitude
    longitude = coordinate.longitude
    phi = coordinate.latitude * radiansPerDegree
    cosPhi = cos(phi)
  }

  /// Haversine distance in metres from the centre to (`lat`, `lon`), bit-identical to
  /// `centre.distance(to: Coordinate(latitude: lat, longitude: lon))`.
  @inline(__always)
  func distance(toLatitude lat: Double, longitude lon: Double) -> Double {
    let phi2 = lat * radiansPerDegree
    let sinHalfDeltaPhi = sin((phi2 - phi) / 2)
    let sinHalfDeltaLambda = sin((lon - longitude) * radiansPerDegree / 2)
    let h =
      sinHalfDeltaPhi * sinHalfDeltaPhi
      + cosPhi * cos(phi2) * sinHalfDeltaLambda * sinHalfDeltaLambda
    return Earth.meanRadiusMeters * (2 * asin(min(1, max(0, h).squareRoot())))
  }
}
