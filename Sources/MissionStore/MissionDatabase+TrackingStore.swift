import Foundation
import MissionTracking

/// The store is the engine's `TrackingStore`: transitions commit in their own transaction
/// (checked against the stored state) before the engine acts on them, each report's events
/// join the group commit with the fence states and distance the engine decided, and the
/// change feed (`rev`, schema version 3) tells the engine what other processes wrote.
/// `commit(_:)`, `record(_:)` and `flush()` are the synchronous ones of the store.
extension MissionDatabase: TrackingStore {
  /// Missions inserted or updated after change number `token` (all when nil) and missions
  /// removed after it.
  ///
  /// While no other connection has committed since the previous call (`PRAGMA
  /// data_version` unchanged), it answers without reading any table, so polling is cheap.
  /// - Complexity: O(changes) through the `rev` index; O(n) for the first call.
  public func changes(after token: Int64?) throws -> MissionChanges {
    try withConnection { connection in
      let version = try connection.integer("PRAGMA data_version") ?? 0
      if let token, version == observedDataVersion {
        return MissionChanges(token: token, missions: [])
      }
      return try connection.transactionForReading {
        let current = try connection.integer("SELECT rev FROM change_counter") ?? 0
        let since = token ?? -1
        let select = try connection.cached(
          "SELECT \(Self.missionColumns) FROM missions WHERE rev > ?")
        defer { select.reset() }
        try select.bind(since, at: 1)
        var missions: [Mission] = []
        while try select.step() { missions.append(mission(from: select)) }
        let removals = try connection.cached("SELECT id FROM mission_removals WHERE rev > ?")
        defer { removals.reset() }
        try removals.bind(since, at: 1)
        var removed: [String] = []
        while try removals.step() { removed.append(removals.string(at: 0) ?? "") }
        observedDataVersion = version
        return MissionChanges(token: current, missions: missions, removedIDs: removed)
      }
    }
  }

  /// The stored fence states, last track fix and travelled distance of mission `id`; nil
  /// when nothing was recorded for it (tracking starts fresh: an enter inside is `initial`).
  public func resumePoint(ofMission id: String) throws -> TrackingPipeline.Resume? {
    try withConnection { connection in
      try commitPendingLocked(connection)
      let fences = try fenceStatesLocked(id, connection)
      let last = try lastFixLocked(id, connection)
      if fences.isEmpty && last == nil { return nil }
      let select = try connection.cached(
        "SELECT travelled_m FROM tracking_sessions WHERE mission_id = ?")
      defer { select.reset() }
      try select.bind(id, at: 1)
      let travelled = try select.step() ? select.double(at: 0) : 0
      return TrackingPipeline.Resume(
        fenceStates: fences, lastDelivered: last, travelledMeters: travelled)
    }
  }
}
