import Foundation
import MissionProximity

/// The engine's missions as other threads may read them at once: every mission by id and
/// by place (a `SpatialGrid` with the mission as payload), and the number in each state.
///
/// Only `MissionEngine` writes it (in `setMission`, the one place its view of a mission
/// changes); readers — the HTTP service's nearby queries, on the server's own threads — take
/// a lock for the length of one query instead of a hop onto the engine's actor.
package final class MissionDirectory: @unchecked Sendable {
  private let lock = NSLock()
  /// Every mission by place, the mission itself as the payload: a nearby query reads its
  /// missions from the grid's slots (no lookup by id per result, which was most of a 1 km
  /// query's time on a million missions), and `mission(_:)` uses the grid's id table.
  private var grid: SpatialGrid<Mission>?
  private var counts: [MissionState: Int] = [:]

  /// An empty directory (filled by the engine's `open()`).
  package init() {}

  /// Replaces the contents with `missions`.
  /// - Throws: `ProximityError` for an unusable grid.
  func load(_ missions: [Mission]) throws {
    let built = try SpatialGrid(missions.map { ($0.id, $0.coordinate, $0) })
    var states: [MissionState: Int] = [:]
    for mission in missions { states[mission.state, default: 0] += 1 }
    lock.withLock {
      grid = built
      counts = states
    }
  }

  /// Stores `mission` under `id` (nil: removes it), moving it in the grid when its place
  /// changed.
  func set(_ mission: Mission?, id: String) {
    lock.withLock {
      if grid == nil { grid = try? SpatialGrid() }
      let old = grid?.payload(of: id)
      if let old { counts[old.state, default: 1] -= 1 }
      guard let mission else {
        _ = grid?.remove(id)
        return
      }
      counts[mission.state, default: 0] += 1
      if old?.coordinate != mission.coordinate {
        grid?.insert(id, at: mission.coordinate, payload: mission)
      } else {
        _ = grid?.setPayload(mission, for: id)
      }
    }
  }

  /// The mission with `id`.
  package func mission(_ id: String) -> Mission? { lock.withLock { grid?.payload(of: id) } }

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
    let predicate: ((Mission) -> Bool)? = filter.map { filter in { filter($0.state) } }
    return try lock.withLock {
      guard let grid else { return [] }
      if let limit {
        return try grid.nearestWithPayloads(
          limit, to: coordinate, within: radiusMeters, where: predicate
        ).map { ($0.match, $0.payload) }
      }
      return try grid.missionsWithPayloads(
        within: radiusMeters ?? 0, of: coordinate, where: predicate
      ).map { ($0.match, $0.payload) }
    }
  }
}
