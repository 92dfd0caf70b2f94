import MissionTracking

/// What the proximity index needs of a mission: id, place and state.
package struct MissionLocation: Sendable, Hashable {
  /// The mission's id.
  package var id: String
  /// The geofence centre.
  package var coordinate: Coordinate
  /// The lifecycle state (for filters such as state = open).
  package var state: MissionState

  /// Creates a location record.
  package init(id: String, coordinate: Coordinate, state: MissionState) {
    self.id = id
    self.coordinate = coordinate
    self.state = state
  }
}
