/// A circular geofence around a mission's point, with the exit margin that gives hysteresis.
public struct Geofence: Sendable, Hashable, Identifiable {
  /// The fence's id: the id of the mission it belongs to.
  public var id: String
  /// The centre of the circle.
  public var center: Coordinate
  /// The radius in metres: a fix at most this far away (and at least this accurate) enters.
  public var radiusMeters: Double
  /// How far beyond the radius a fix must be to exit, metres.
  public var exitMarginMeters: Double

  /// The default exit margin for `radiusMeters`: max(20 m, 20 % of the radius).
  public static func defaultExitMarginMeters(radiusMeters: Double) -> Double {
    max(20, 0.2 * radiusMeters)
  }

  /// Creates a fence; `exitMarginMeters` defaults to max(20 m, 20 % of the radius).
  public init(id: String, center: Coordinate, radiusMeters: Double, exitMarginMeters: Double? = nil)
  {
    self.id = id
    self.center = center
    self.radiusMeters = radiusMeters
    self.exitMarginMeters =
      exitMarginMeters ?? Geofence.defaultExitMarginMeters(radiusMeters: radiusMeters)
  }

  /// The fence of `mission`: its point and radius, the default exit margin.
  public init(mission: Mission) {
    self.init(
      id: mission.id, center: mission.coordinate, radiusMeters: mission.geofenceRadiusMeters)
  }

  /// The distance beyond which an inside worker exits: radius plus exit margin, metres.
  public var exitDistanceMeters: Double { radiusMeters + exitMarginMeters }
}
