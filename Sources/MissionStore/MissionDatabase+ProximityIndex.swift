import MissionTracking

extension MissionDatabase {
  /// Builds the proximity index of every stored mission, keyed by id with its state as the
  /// payload (so `where: { $0 == .open }` filters without a second lookup).
  ///
  /// Callers keep the index in step with their own changes (`insert`, `move`, `setPayload`,
  /// `remove` are O(1) expected); rebuilding is for start-up.
  /// - Throws: `StoreError` when the missions cannot be read.
  /// - Complexity: O(n) for n missions (one covering-index scan plus the grid's counting sort).
  package func proximityIndex() throws -> SpatialGrid<MissionState> {
    let locations = try missionLocations()
    return try SpatialGrid(locations.map { ($0.id, $0.coordinate, $0.state) })
  }
}
