import Foundation
import MissionProximity

/// The azimuthal equidistant projection centred on the mission point, on the sphere of
/// `Earth.meanRadiusMeters`, in metres east (x) and north (y).
///
/// Why this projection: the distance and bearing of every point from the centre are exact,
/// so the geofence (all points at `radius` from the mission) is exactly a circle and the
/// "distance to mission" of every fix can be read off the page. Away from the centre, scale
/// across the radial direction grows by c / sin c (c the central angle), an error of about
/// c²/6: 4·10⁻⁷ at 10 km, 0.004 % at 100 km. So within any drawable mission area metres on
/// the page are true. Longitude differences enter only through sin and cos, so a track across
/// the antimeridian stays continuous. Formulas: J. P. Snyder, "Map Projections — A Working
/// Manual" (USGS PP 1395, 1987), §25, with the cos c terms rewritten in haversine form to keep
/// precision at metre scale.
package struct LocalProjection: Sendable {
  /// The centre of the projection.
  let center: Coordinate
  private let sinPhi0: Double

  /// A projection centred on `center`.
  package init(center: Coordinate) {
    self.center = center
    sinPhi0 = sin(center.latitude * radiansPerDegree)
  }

  /// `coordinate` in metres east (x) and north (y) of the centre.
  /// - Complexity: O(1).
  package func project(_ coordinate: Coordinate) -> PlanePoint {
    let phi = coordinate.latitude * radiansPerDegree
    let deltaLambda =
      normalizedLongitude(coordinate.longitude - center.longitude) * radiansPerDegree
    let angle = center.centralAngleRadians(to: coordinate)
    let sinAngle = sin(angle)
    // c / sin c; 1 at the centre. Near the antipode it blows up: cap it so nothing is NaN.
    let k = angle < 1e-12 ? 1 : (sinAngle > 1e-9 ? angle / sinAngle : 1e9)
    let cosPhi = cos(phi)
    let halfSin = sin(deltaLambda / 2)
    let x = cosPhi * sin(deltaLambda)
    // cos φ0 sin φ − sin φ0 cos φ cos Δλ, rewritten as sin(φ − φ0) + 2 sin φ0 cos φ sin²(Δλ/2).
    let y = sin(phi - center.latitude * radiansPerDegree) + 2 * sinPhi0 * cosPhi * halfSin * halfSin
    return PlanePoint(x: Earth.meanRadiusMeters * k * x, y: Earth.meanRadiusMeters * k * y)
  }
}
