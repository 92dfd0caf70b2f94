import Foundation
import MissionTracking

/// The store is the engine's `TrackingStore`: transitions commit in their own transaction
/// (checked against the stored state) before the engine acts on them, each report's events
/// join the group commit with the fence states and distance the engine decided, and the
/// change feed (`mission_changes`, schema version 3) tells the engine what other processes
/// wrote.
/// `commit(_:)`, `record(_:)` and `flush()` are the synchronous ones of the store.
extension MissionDatabase: TrackingStore {
  /// Missions inserted or updated after change number `token` of the `mission_changes` log
  /// (all missions when nil) and missions removed after it.
  ///
  /// Read by the committed reader (`withCommittedReader`): a poll never waits for the
  /// writer's commit. While nothing was committed since the previous call (`PRAGMA
  /// data_version` unchanged), it answers without reading any table, so polling is cheap.
  /// - Complexity: O(changes log n); O(n) for the first call.
  package func changes(after token: Int64?) throws -> MissionChanges {
    try withCommittedReader { connection in
      let version = try connection.integer("PRAGMA data_version") ?? 0
      // data_version moves with every commit but the reading connection's own (the reader
      // writes nothing; on `:memory:` the one connection's writes move the log's last seq).
      if let token, version == observedDataVersion,
        try connection.integer("SELECT coalesce(max(seq), 0) FROM mission_changes") == token
      {
        return MissionChanges(token: token, missions: [])
      }
      return try connection.transactionForReading {
        let current =
          try connection.integer("SELECT coalesce(max(seq), 0) FROM mission_changes") ?? 0
        var missions: [Mission] = []
        var removed: [String] = []
        if let token {
          let select = try connection.cached(
            """
            SELECT \(Self.missionColumns) FROM missions
            WHERE id IN (SELECT id FROM mission_changes WHERE seq > :token)
            """)
          defer { select.reset() }
          try select.bind(["token": token])
          let columns = try MissionColumns(select)
          while try select.step() { missions.append(mission(from: select, columns)) }
          let removals = try connection.cached(
            """
            SELECT DISTINCT id FROM mission_changes
            WHERE seq > :token AND removed = 1 AND id NOT IN (SELECT id FROM missions)
            """)
          defer { removals.reset() }
          try removals.bind(["token": token])
          let id = try removals.column("id")
          while try removals.step() { removed.append(removals.string(id) ?? "") }
        } else {
          let select = try connection.cached("SELECT \(Self.missionColumns) FROM missions")
          defer { select.reset() }
          let columns = try MissionColumns(select)
          while try select.step() { missions.append(mission(from: select, columns)) }
        }
        observedDataVersion = version
        return MissionChanges(token: current, missions: missions, removedIDs: removed)
      }
    }
  }

  /// The stored fence states, last track fix and travelled distance of mission `id`; nil
  /// when nothing was recorded for it (tracking starts fresh: an enter inside is `initial`).
  package func resumePoint(ofMission id: String) throws -> TrackingPipeline.Resume? {
    try withConnection { connection in
      try commitPendingLocked(connection)
      let fences = try fenceStatesLocked(id, connection)
      let last = try lastFixLocked(id, connection)
      if fences.isEmpty && last == nil { return nil }
      let select = try connection.cached(
        "SELECT travelled_m FROM tracking_sessions WHERE mission_id = :id")
      defer { select.reset() }
      try select.bind(["id": id])
      let travelled = try select.step() ? try select.double("travelled_m") : 0
      return TrackingPipeline.Resume(
        fenceStates: fences, lastDelivered: last, travelledMeters: travelled)
    }
  }

  /// The time of mission `id`'s latest transition to `active`, by whichever process made it.
  package func trackingStart(ofMission id: String) throws -> Date? {
    try withConnection { connection in
      let select = try connection.cached(
        """
        SELECT time_us FROM transitions WHERE mission_id = :id AND to_state = 'active'
        ORDER BY seq DESC LIMIT 1
        """)
      defer { select.reset() }
      try select.bind(["id": id])
      return try select.step() ? date(microseconds: try select.int64("time_us")) : nil
    }
  }
}
