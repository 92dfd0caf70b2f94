import Foundation

extension Coordinate {
  /// Great-circle distance to `other` in metres on the sphere of `Earth.meanRadiusMeters`.
  ///
  /// The haversine formula (R. W. Sinnott, "Virtues of the Haversine", Sky and Telescope 68,
  /// 1984), with the haversine clamped to [0, 1] so that rounding never yields NaN: identical
  /// points give exactly 0 and antipodes give π·R. Longitudes ±180 are the same meridian.
  ///
  /// - Complexity: O(1).
  public func distance(to other: Coordinate) -> Double {
    QueryPoint(self).distance(toLatitude: other.latitude, longitude: other.longitude)
  }

  /// The angle at the Earth's centre between `self` and `other`, in radians, in [0, π].
  package func centralAngleRadians(to other: Coordinate) -> Double {
    distance(to: other) / Earth.meanRadiusMeters
  }

  /// Initial great-circle bearing from `self` towards `other`, in degrees clockwise from
  /// true north, in [0, 360).
  ///
  /// Formula from Ed Williams, "Aviation Formulary" (course between points). The bearing from
  /// a point to itself is 0; from a pole it follows the convention of that formula
  /// (180 from the north pole, 0 from the south pole, adjusted by longitude).
  public func initialBearingDegrees(to other: Coordinate) -> Double {
    let phi1 = latitude * radiansPerDegree
    let phi2 = other.latitude * radiansPerDegree
    let deltaLambda = (other.longitude - longitude) * radiansPerDegree
    let y = sin(deltaLambda) * cos(phi2)
    let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(deltaLambda)
    if x == 0 && y == 0 { return 0 }
    return normalizedDegrees(atan2(y, x) / radiansPerDegree)
  }

  /// The point reached by travelling `distanceMeters` along a great circle that starts at
  /// `self` with the initial bearing `bearingDegrees`.
  ///
  /// Formula from Ed Williams, "Aviation Formulary" (destination given distance and bearing).
  /// The longitude of the result is normalized to [-180, 180).
  /// - Throws: `ProximityError.invalidDistance` for a negative or non-finite distance,
  ///   `.invalidBearing` for a non-finite bearing.
  public func destination(bearingDegrees: Double, distanceMeters: Double) throws(ProximityError)
    -> Coordinate
  {
    guard distanceMeters.isFinite, distanceMeters >= 0 else {
      throw .invalidDistance(distanceMeters)
    }
    guard bearingDegrees.isFinite else { throw .invalidBearing(bearingDegrees) }
    let delta = distanceMeters / Earth.meanRadiusMeters
    let theta = bearingDegrees * radiansPerDegree
    let phi1 = latitude * radiansPerDegree
    let lambda1 = longitude * radiansPerDegree
    let sinPhi2 = sin(phi1) * cos(delta) + cos(phi1) * sin(delta) * cos(theta)
    let phi2 = asin(min(1, max(-1, sinPhi2)))
    let lambda2 =
      lambda1
      + atan2(sin(theta) * sin(delta) * cos(phi1), cos(delta) - sin(phi1) * sin(phi2))
    return Coordinate(
      uncheckedLatitude: min(90, max(-90, phi2 / radiansPerDegree)),
      longitude: normalizedLongitude(lambda2 / radiansPerDegree))
  }

  /// The smallest latitude/longitude box that contains every point within `radiusMeters`.
  ///
  /// Method of J. P. Matuschek, "Finding Points Within a Distance of a Latitude/Longitude
  /// Using Bounding Coordinates" (2010): the longitude half-width is asin(sin r / cos φ).
  /// A circle that reaches over a pole spans every longitude; one that crosses the
  /// antimeridian gives a box whose `west` is greater than its `east`.
  /// - Throws: `ProximityError.invalidDistance` for a negative or non-finite radius.
  public func boundingBox(radiusMeters: Double) throws(ProximityError) -> BoundingBox {
    guard radiusMeters.isFinite, radiusMeters >= 0 else { throw .invalidDistance(radiusMeters) }
    let angular = radiusMeters / Earth.meanRadiusMeters
    let south = latitude - angular / radiansPerDegree
    let north = latitude + angular / radiansPerDegree
    if angular >= .pi || south <= -90 || north >= 90 {
      return BoundingBox(
        unchecked: max(-90, south), west: -180, north: min(90, north), east: 180)
    }
    let halfWidth =
      asin(min(1, sin(angular) / cos(latitude * radiansPerDegree)))
      / radiansPerDegree
    if halfWidth >= 180 {
      return BoundingBox(unchecked: south, west: -180, north: north, east: 180)
    }
    return BoundingBox(
      unchecked: south, west: normalizedLongitude(longitude - halfWidth), north: north,
      east: normalizedLongitude(longitude + halfWidth, keepingEast: true))
  }
}

/// Degrees to radians.
package let radiansPerDegree = Double.pi / 180

/// `to - from` in degrees of longitude, wrapped into [-180, 180] so that the difference
/// never goes the long way round and ±180 are the same meridian.
@inline(__always)
package func longitudeDifference(from: Double, to: Double) -> Double {
  let delta = to - from
  if delta > 180 { return delta - 360 }
  if delta < -180 { return delta + 360 }
  return delta
}

/// `degrees` wrapped into [0, 360).
package func normalizedDegrees(_ degrees: Double) -> Double {
  let wrapped = degrees.truncatingRemainder(dividingBy: 360)
  let positive = wrapped < 0 ? wrapped + 360 : wrapped
  return positive == 360 ? 0 : positive
}

/// `longitude` wrapped into [-180, 180); with `keepingEast`, into (-180, 180] so that an
/// eastern box edge that lands exactly on the antimeridian stays 180.
package func normalizedLongitude(_ longitude: Double, keepingEast: Bool = false) -> Double {
  var wrapped = (longitude + 180).truncatingRemainder(dividingBy: 360)
  if wrapped < 0 { wrapped += 360 }
  wrapped -= 180
  if keepingEast && wrapped == -180 { return 180 }
  return wrapped
}
