import MissionProximity
import MissionStore
import MissionTracking

/// The geofences of other missions near the worker, from the proximity grid.
///
/// Holds the fences of every mission that is not finished (open, accepted, active, arrived,
/// submitted), except the tracked one, whose fence the tracker evaluates itself.
struct GridFenceCatalog: FenceCatalog {
  private let grid: SpatialGrid<MissionState>
  private let fences: [String: Geofence]

  /// Loads the fences from `database`, leaving out `excludedID`.
  init(database: MissionDatabase, excluding excludedID: String) throws {
    var fences: [String: Geofence] = [:]
    var entries: [(id: String, coordinate: Coordinate, payload: MissionState)] = []
    for mission in try database.missions() where !mission.state.isFinal && mission.id != excludedID
    {
      fences[mission.id] = Geofence(mission: mission)
      entries.append((mission.id, mission.coordinate, mission.state))
    }
    self.fences = fences
    grid = try SpatialGrid(entries)
  }

  /// How many fences the catalog holds.
  var count: Int { fences.count }

  func fences(within radiusMeters: Double, of coordinate: Coordinate) -> [Geofence] {
    let matches = (try? grid.missions(within: radiusMeters, of: coordinate)) ?? []
    return matches.compactMap { fences[$0.id] }
  }
}
