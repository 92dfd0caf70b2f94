import MissionTracking

/// What the proximity index needs of a mission: id, place and state.
public struct MissionLocation: Sendable, Hashable {
  /// The mission's id.
  public var id: String
  /// The geofence centre.
  public var coordinate: Coordinate
  /// The lifecycle state (for filters such as state = open).
  public var state: MissionState

  /// Creates a location record.
  public init(id: String, coordinate: Coordinate, state: MissionState) {
    self.id = id
    self.coordinate = coordinate
    self.state = state
  }
}
