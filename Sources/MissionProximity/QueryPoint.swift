import Foundation

/// A query centre with the terms of the haversine formula that depend on it precomputed.
///
/// This is the one place the haversine formula is written: `Coordinate.distance(to:)` calls
/// it, and the grid calls it with `cos(φ1)` hoisted out of its loops, so grid results are
/// bit-identical to a brute-force scan. A test pins this.
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
    QueryPoint.meters(haversine: haversine(toLatitude: lat, longitude: lon))
  }

  /// The haversine of the central angle to (`lat`, `lon`): the `h` of
  /// `Coordinate.centralAngleRadians(to:)`, before the square root and arcsine.
  @inline(__always)
  func haversine(toLatitude lat: Double, longitude lon: Double) -> Double {
    let phi2 = lat * radiansPerDegree
    let sinHalfDeltaPhi = sin((phi2 - phi) / 2)
    let deltaLongitude = longitudeDifference(from: longitude, to: lon)
    let sinHalfDeltaLambda = sin(deltaLongitude * radiansPerDegree / 2)
    return sinHalfDeltaPhi * sinHalfDeltaPhi
      + cosPhi * cos(phi2) * sinHalfDeltaLambda * sinHalfDeltaLambda
  }

  /// The distance in metres for a haversine `h`, as `Coordinate.distance(to:)` computes it.
  @inline(__always)
  static func meters(haversine h: Double) -> Double {
    Earth.meanRadiusMeters * (2 * asin(min(1, max(0, h).squareRoot())))
  }

  /// A haversine above which a distance is certainly beyond `radiusMeters` (with room for
  /// rounding), so the arcsine can be skipped; infinity when nothing can be ruled out.
  static func haversineCutoff(radiusMeters: Double) -> Double {
    let halfAngle = radiusMeters / Earth.meanRadiusMeters / 2
    guard halfAngle < Double.pi / 2 * 0.99 else { return .infinity }
    let s = sin(halfAngle)
    return s * s * (1 + 1e-9) + 1e-30
  }
}
