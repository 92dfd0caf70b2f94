import Foundation
import MissionTracking

/// The engine's store contract on PostgreSQL: transitions are compare-and-set on the stored
/// state, each report's events, fence states, distance and track commit in one transaction,
/// and the change log (`mission_changes`) tells the engine what other nodes wrote.
extension PostgresDatabase: TrackingStore {
  /// Missions inserted or updated after change number `token` of the change log (every
  /// mission when nil) and missions removed after it, read in one snapshot.
  /// - Complexity: O(changes) with an index on the log; O(n) for the first call.
  package func changes(after token: Int64?) throws -> MissionChanges {
    try withConnection { connection in
      try connection.transaction(isolation: "REPEATABLE READ, READ ONLY") {
        let current =
          try connection.query("SELECT coalesce(max(seq), 0) AS seq FROM mission_changes")
          .int64(0, "seq") ?? 0
        guard let token else {
          let rows = try connection.query(
            "SELECT \(Self.missionColumns) FROM missions ORDER BY id")
          return MissionChanges(token: current, missions: try Self.missions(rows))
        }
        if token >= current { return MissionChanges(token: token, missions: []) }
        let rows = try connection.query(
          """
          SELECT \(Self.missionColumns) FROM missions
          WHERE id IN (SELECT id FROM mission_changes WHERE seq > :token) ORDER BY id
          """, ["token": token])
        let removals = try connection.query(
          """
          SELECT DISTINCT id FROM mission_changes c
          WHERE seq > :token AND removed AND NOT EXISTS (SELECT 1 FROM missions m WHERE m.id = c.id)
          ORDER BY id
          """, ["token": token])
        let removed = (0..<removals.count).compactMap { removals.string($0, "id") }
        return MissionChanges(
          token: current, missions: try Self.missions(rows), removedIDs: removed)
      }
    }
  }

  /// The stored fence states, last delivered fix and travelled distance of mission `id`;
  /// nil when nothing was recorded for it.
  package func resumePoint(ofMission id: String) throws -> TrackingPipeline.Resume? {
    try resumePoints(ofMissions: [id])[id] ?? nil
  }

  /// True: nodes on one database record batches of one worker's session in turn.
  package var sessionsAreShared: Bool { true }

  /// The resume points of the missions in `versions` (mission id → the session version its
  /// decider holds) whose stored version is another: a node that recorded batches of the
  /// session since. One statement when none is.
  package func resumePoints(ofSessionsOtherThan versions: [String: Int64]) throws
    -> [String: TrackingPipeline.Resume?]
  {
    guard !versions.isEmpty else { return [:] }
    let rows = try withConnection { connection in
      try connection.query(
        """
        SELECT mission_id, version FROM tracking_sessions
        WHERE mission_id = ANY (CAST(:missions AS text[]))
        """, ["missions": PostgresArray(Array(versions.keys))])
    }
    let stale = (0..<rows.count).compactMap { row -> String? in
      guard let mission = rows.string(row, "mission_id"),
        let version = rows.int64(row, "version"), version != versions[mission]
      else { return nil }
      return mission
    }
    guard !stale.isEmpty else { return [:] }
    return try resumePoints(ofMissions: stale)
  }

  /// The resume point of each of missions `ids`, read in one snapshot (nil for a mission
  /// with nothing recorded).
  private func resumePoints(ofMissions ids: [String]) throws -> [String: TrackingPipeline.Resume?] {
    try withConnection { connection in
      try connection.transaction(isolation: "REPEATABLE READ, READ ONLY") {
        let fences = try Self.fenceStates(ofMissions: ids, connection)
        // One row of each track, read backwards on its key.
        let lastRows = try connection.query(
          """
          SELECT u.id AS mission_id, t.* FROM unnest(CAST(:ids AS text[])) AS u(id)
          CROSS JOIN LATERAL (
            SELECT \(Self.trackColumns) FROM track WHERE mission_id = u.id
            ORDER BY time DESC LIMIT 1) AS t
          """, ["ids": PostgresArray(ids)])
        var last: [String: Fix] = [:]
        for (row, fix) in Self.fixes(lastRows).enumerated() {
          if let mission = lastRows.string(row, "mission_id") { last[mission] = fix }
        }
        let sessions = try connection.query(
          """
          SELECT mission_id, travelled_m, version FROM tracking_sessions
          WHERE mission_id = ANY (CAST(:ids AS text[]))
          """, ["ids": PostgresArray(ids)])
        var stored: [String: (travelled: Double, version: Int64)] = [:]
        for row in 0..<sessions.count {
          guard let mission = sessions.string(row, "mission_id") else { continue }
          stored[mission] = (
            sessions.double(row, "travelled_m") ?? 0, sessions.int64(row, "version") ?? 0
          )
        }
        var points: [String: TrackingPipeline.Resume?] = [:]
        for id in ids {
          let session = stored[id]
          if fences[id] == nil && last[id] == nil && (session?.version ?? 0) == 0 {
            points[id] = .some(nil)
            continue
          }
          points[id] = TrackingPipeline.Resume(
            fenceStates: fences[id] ?? [:], lastDelivered: last[id],
            travelledMeters: session?.travelled ?? 0, version: session?.version ?? 0)
        }
        return points
      }
    }
  }

  /// The time of mission `id`'s latest transition to `active`, by whichever node made it.
  package func trackingStart(ofMission id: String) throws -> Date? {
    try withConnection { connection in
      try connection.query(
        """
        SELECT mt_us(time) AS time_us FROM transitions
        WHERE mission_id = :id AND to_state = 'active' ORDER BY seq DESC LIMIT 1
        """, ["id": id]
      ).int64(0, "time_us").map(Self.date(microseconds:))
    }
  }

  /// Records `transition` when the stored state is still `transition.from`, with its audit
  /// row and its `state` event, in one transaction.
  /// - Throws: `TrackingError.changedElsewhere` (another node changed it first),
  ///   `.unknownMission`, `.workerBusy` naming the worker and the mission it tracks (the
  ///   partial unique index refused a second one), `.unknownWorker` (an accept naming a
  ///   worker the store does not hold), `PostgresError`.
  package func commit(_ transition: MissionTransition) throws {
    var attempts = 0
    while true {
      attempts += 1
      do {
        try withConnection { connection in
          try connection.transaction { try Self.write(transition, connection) }
        }
        return
      } catch let error as PostgresError
        where error.kind == .uniqueViolation
        && error.constraint == "missions_one_tracked_per_worker"
      {
        let (worker, holder) = try trackedMission(sharingWorkerWith: transition)
        if let holder {
          throw TrackingError.workerBusy(
            workerID: worker, tracked: holder, requested: transition.missionID)
        }
        // The holder left tracking between the refusal and the look-up: try again.
        guard attempts < 3 else { throw error }
      }
    }
  }

  /// Records events of no tracking session (`mission_nearby`), in order, in one transaction.
  /// - Throws: `TrackingError.unknownMission` for an event of a mission the store does not
  ///   hold (nothing is recorded), `PostgresError`.
  package func recordEvents(_ events: [TrackingEvent]) throws {
    guard !events.isEmpty else { return }
    try Self.refuseStateEvents(events)
    try withConnection { connection in
      try connection.transaction {
        // FOR SHARE: a removal of one of the missions waits until the events are in.
        let known = try connection.query(
          "SELECT id FROM missions WHERE id = ANY (string_to_array(:ids, chr(31))) FOR SHARE",
          ["ids": events.map(\.missionID).joined(separator: "\u{1F}")])
        let stored = Set((0..<known.count).compactMap { known.string($0, "id") })
        if let missing = events.first(where: { !stored.contains($0.missionID) }) {
          throw TrackingError.unknownMission(missing.missionID)
        }
        try Self.insert(events, connection)
      }
    }
  }

  /// Every standing watch, by id.
  package func watches() throws -> [Watch] {
    try withConnection { connection in
      let rows = try connection.query(
        "SELECT id, lat, lon, radius_m, worker_id, state FROM watches ORDER BY id")
      return try (0..<rows.count).map { row in
        Watch(
          id: rows.string(row, "id") ?? "",
          coordinate: Coordinate(
            uncheckedLatitude: rows.double(row, "lat") ?? 0,
            longitude: rows.double(row, "lon") ?? 0),
          radiusMeters: rows.double(row, "radius_m") ?? 0,
          workerID: rows.string(row, "worker_id"),
          state: try rows.string(row, "state").map { try Self.state($0) })
      }
    }
  }

  /// Adds or replaces a watch.
  package func saveWatch(_ watch: Watch) throws {
    try withConnection { connection in
      _ = try connection.query(
        """
        INSERT INTO watches (id, lat, lon, radius_m, worker_id, state)
        VALUES (:id, :lat, :lon, :radius, :worker, :state)
        ON CONFLICT (id) DO UPDATE SET lat = excluded.lat, lon = excluded.lon,
          radius_m = excluded.radius_m, worker_id = excluded.worker_id, state = excluded.state
        """,
        [
          "id": watch.id, "lat": watch.coordinate.latitude, "lon": watch.coordinate.longitude,
          "radius": watch.radiusMeters, "worker": watch.workerID,
          "state": watch.state?.rawValue,
        ])
    }
  }

  /// Removes watch `id`; false when there was none.
  package func removeWatch(id: String) throws -> Bool {
    try withConnection { connection in
      try connection.query("DELETE FROM watches WHERE id = :id", ["id": id]).affectedRows == 1
    }
  }

  // MARK: - Internals

  /// The worker of `transition` and the mission that worker tracks now, if any.
  private func trackedMission(sharingWorkerWith transition: MissionTransition) throws
    -> (worker: String, holder: String?)
  {
    try withConnection { connection in
      let rows = try connection.query(
        """
        SELECT coalesce(:worker, m.worker_id, 'local') AS worker,
          (SELECT o.id FROM missions o
           WHERE coalesce(o.worker_id, 'local') = coalesce(:worker, m.worker_id, 'local')
             AND o.state IN ('active', 'arrived') AND o.id <> m.id
           ORDER BY o.id LIMIT 1) AS holder
        FROM missions m WHERE m.id = :id
        """, ["worker": transition.workerID, "id": transition.missionID])
      guard rows.count == 1 else { throw TrackingError.unknownMission(transition.missionID) }
      return (rows.string(0, "worker") ?? Worker.localID, rows.string(0, "holder"))
    }
  }

  /// The compare-and-set of one transition, its audit row and its `state` event.
  private static func write(_ transition: MissionTransition, _ connection: PostgresConnection)
    throws
  {
    let id = transition.missionID
    let time = microseconds(transition.time)
    let updated = try connection.query(
      """
      UPDATE missions SET state = :to, worker_id = coalesce(:worker, worker_id),
        updated = mt_time(:time)
      WHERE id = :id AND state = :from
      """,
      [
        "to": transition.to.rawValue, "worker": transition.workerID, "time": time, "id": id,
        "from": transition.from.rawValue,
      ])
    guard updated.affectedRows == 1 else {
      let stored = try connection.query("SELECT state FROM missions WHERE id = :id", ["id": id])
      guard stored.count == 1 else { throw TrackingError.unknownMission(id) }
      throw TrackingError.changedElsewhere(
        missionID: id, state: try state(stored.string(0, "state")))
    }
    if transition.action == .accept {
      // The accepting worker must be stored (no foreign key since migration 2); FOR SHARE
      // makes its removal wait until this transaction ends.
      let worker = transition.workerID ?? Worker.localID
      let found = try connection.query(
        "SELECT 1 FROM workers WHERE id = :worker FOR SHARE", ["worker": worker])
      guard found.count == 1 else { throw TrackingError.unknownWorker(worker) }
    }
    try connection.query(
      """
      INSERT INTO transitions (mission_id, action, from_state, to_state, worker_id, time)
      VALUES (:id, :action, :from, :to, :worker, mt_time(:time))
      """,
      [
        "id": id, "action": transition.action.rawValue, "from": transition.from.rawValue,
        "to": transition.to.rawValue, "worker": transition.workerID, "time": time,
      ])
    try insert([transition.event], connection)
  }

  static func refuseStateEvents(_ events: [TrackingEvent]) throws {
    for event in events {
      if case .state = event.kind {
        throw PostgresError(
          kind: .other,
          message:
            "a state event for mission \(event.missionID) is recorded by its transition, not as an event"
        )
      }
    }
  }

  /// Appends `events` to the outbox in order (one binary `COPY`, `PostgresCopyBinary`),
  /// each in its typed columns.
  ///
  /// `COPY` rather than an `INSERT` from arrays: the server inserts its rows in batches,
  /// about three times faster per event, and most events are a recorded fix's. The
  /// statement's trigger (schema 3, `PostgresMigration.outbox`) fires for it too: it takes a
  /// transaction-scoped advisory lock first and holds it to the transaction's end, so events
  /// get their numbers in commit order: a reader that saw number n has seen every event
  /// before it, and following the log by number (`/v1/events`, the outbox's cursors) never
  /// skips one committed late by another node or connection.
  static func insert(_ events: [TrackingEvent], _ connection: PostgresConnection) throws {
    guard !events.isEmpty else { return }
    var rows = PostgresCopyBinary(rows: events.count, bytesPerRow: 150)
    for event in events {
      let columns = EventKindColumns(event.kind)
      rows.row(fields: 15)
      rows.text(event.missionID)
      rows.text(event.workerID)
      rows.text(event.type)
      rows.timestamp(microseconds: microseconds(event.time))
      rows.float8(columns.distance)
      rows.float8(columns.travelled)
      rows.text(columns.fence)
      rows.bool(columns.initial)
      rows.float8(columns.seconds)
      rows.text(columns.from)
      rows.text(columns.to)
      rows.text(columns.status)
      rows.text(columns.detail)
      rows.int64(columns.count.map(Int64.init))
      rows.text(columns.watch)
    }
    _ = try connection.copy(
      """
      COPY events (mission_id, worker_id, type, time, distance_m, travelled_m, fence_id,
        initial, seconds, from_state, to_state, status, detail, count, watch_id) FROM STDIN
        (FORMAT binary)
      """, from: [rows.finish()])
  }
}
