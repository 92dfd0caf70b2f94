import Foundation
import MissionProximity

/// The engine's missions as other threads may read them at once: every mission by id and
/// by place (a `SpatialGrid` with the state as payload), and the number in each state.
///
/// Only `MissionEngine` writes it (in `setMission`, the one place its view of a mission
/// changes); readers — the HTTP service's nearby queries, on the server's own threads — take
/// a lock for the length of one query instead of a hop onto the engine's actor.
package final class MissionDirectory: @unchecked Sendable {
  private let lock = NSLock()
  private var grid: SpatialGrid<MissionState>?
  private var byID: [String: Mission] = [:]
  private var counts: [MissionState: Int] = [:]

  /// An empty directory (filled by the engine's `open()`).
  package init() {}

  /// Replaces the contents with `missions`.
  /// - Throws: `ProximityError` for an unusable grid.
  func load(_ missions: [Mission]) throws {
    let built = try SpatialGrid(missions.map { ($0.id, $0.coordinate, $0.state) })
    var index: [String: Mission] = [:]
    index.reserveCapacity(missions.count)
    var states: [MissionState: Int] = [:]
    for mission in missions {
      index[mission.id] = mission
      states[mission.state, default: 0] += 1
    }
    lock.withLock {
      grid = built
      byID = index
      counts = states
    }
  }

  /// Stores `mission` under `id` (nil: removes it), moving it in the grid when its place
  /// changed.
  func set(_ mission: Mission?, id: String) {
    lock.withLock {
      let old = byID[id]
      if let old { counts[old.state, default: 1] -= 1 }
      byID[id] = mission
      guard let mission else {
        _ = grid?.remove(id)
        return
      }
      counts[mission.state, default: 0] += 1
      if old?.coordinate != mission.coordinate {
        grid?.insert(id, at: mission.coordinate, payload: mission.state)
      } else {
        _ = grid?.setPayload(mission.state, for: id)
      }
    }
  }

  /// The mission with `id`.
  package func mission(_ id: String) -> Mission? { lock.withLock { byID[id] } }

  /// How many missions are in each state (states with none are left out).
  package var countsByState: [MissionState: Int] {
    lock.withLock { counts.filter { $0.value > 0 } }
  }

  /// Missions within `radiusMeters` of `coordinate` (every distance when nil, with a
  /// `limit`), nearest first (ties by id), only those whose state passes `filter` (applied
  /// before `limit`), each with its mission.
  /// - Throws: `ProximityError` for a bad radius or limit.
  package func missions(
    within radiusMeters: Double?, of coordinate: Coordinate, limit: Int? = nil,
    where filter: ((MissionState) -> Bool)? = nil
  ) throws -> [(match: ProximityMatch, mission: Mission)] {
    try lock.withLock {
      guard let grid else { return [] }
      let matches: [ProximityMatch]
      if let limit {
        matches = try grid.nearest(limit, to: coordinate, within: radiusMeters, where: filter)
      } else {
        matches = try grid.missions(within: radiusMeters ?? 0, of: coordinate, where: filter)
      }
      return matches.compactMap { match in byID[match.id].map { (match, $0) } }
    }
  }
}
