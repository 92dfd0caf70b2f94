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
    try withConnection { connection in
      try connection.transaction(isolation: "REPEATABLE READ, READ ONLY") {
        let fences = try Self.fenceStates(ofMission: id, connection)
        let last = try Self.fixes(
          connection.query(
            """
            SELECT \(Self.trackColumns) FROM track WHERE mission_id = :id
            ORDER BY time DESC LIMIT 1
            """, ["id": id])
        ).first
        let session = try connection.query(
          "SELECT travelled_m, version FROM tracking_sessions WHERE mission_id = :id", ["id": id])
        let version = session.int64(0, "version") ?? 0
        if fences.isEmpty && last == nil && version == 0 { return nil }
        return TrackingPipeline.Resume(
          fenceStates: fences, lastDelivered: last,
          travelledMeters: session.double(0, "travelled_m") ?? 0, version: version)
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

  /// Records the events of one report, the track of its fixes, its fence states and the
  /// travelled distance, in one transaction, while the mission is tracked. A fix at a time
  /// the track already holds is a resent one: it is skipped with its event.
  ///
  /// The session's row in `tracking_sessions` is written first, which locks it to the
  /// transaction's end: a batch decided from version v is recorded only while the row holds
  /// v (then v + 1), so two nodes deciding one worker's positions at once serialize here and
  /// the one that decided from an older state records nothing.
  /// - Throws: `TrackingError.changedElsewhere` when another node took the mission out of
  ///   tracking, `.decidedElsewhere` when another node recorded a batch of the session since
  ///   `batch.basedOnVersion` (nothing is recorded either way), `.unknownMission`,
  ///   `PostgresError`.
  package func record(_ batch: TrackingBatch) throws {
    try Self.refuseStateEvents(batch.events)
    try transactionNotWaitingForDisk { connection in
      // FOR SHARE: a transition of this mission waits until the batch commits, and a
      // batch after a stop sees the stop.
      let stored = try connection.query(
        "SELECT state FROM missions WHERE id = :id FOR SHARE", ["id": batch.missionID])
      guard stored.count == 1 else { throw TrackingError.unknownMission(batch.missionID) }
      let state = try Self.state(stored.string(0, "state"))
      guard state.isTracking else {
        throw TrackingError.changedElsewhere(missionID: batch.missionID, state: state)
      }
      let updated = Self.microseconds(batch.events.last?.time ?? Date())
      // No row yet: this inserts it, and a node inserting it at the same time waits here,
      // then finds the version moved on.
      let written = try connection.query(
        """
        INSERT INTO tracking_sessions (mission_id, worker_id, travelled_m, updated, version)
        VALUES (:mission, :worker, :travelled, mt_time(:updated),
          coalesce(CAST(:based AS bigint), 0) + 1)
        ON CONFLICT (mission_id) DO UPDATE SET worker_id = excluded.worker_id,
          travelled_m = excluded.travelled_m, updated = excluded.updated,
          version = tracking_sessions.version + 1
        WHERE CAST(:based AS bigint) IS NULL OR tracking_sessions.version = CAST(:based AS bigint)
        """,
        [
          "mission": batch.missionID, "worker": batch.workerID,
          "travelled": batch.travelledMeters, "updated": updated, "based": batch.basedOnVersion,
        ])
      guard written.affectedRows == 1 else {
        throw TrackingError.decidedElsewhere(missionID: batch.missionID, workerID: batch.workerID)
      }
      // A fix the track already holds (a resent batch) is skipped with its event.
      var added = try Self.insertTrack(of: batch.events, connection)
      let kept = batch.events.filter { event in
        guard case .fix(let fix, _, _) = event.kind else { return true }
        return added.remove(TrackKey(event.missionID, Self.microseconds(fix.time))) != nil
      }
      for event in kept {
        if case .rejected(let reason, let count) = event.kind {
          try connection.query(
            """
            INSERT INTO ingest_rejections (mission_id, reason, count)
            VALUES (:mission, :reason, :count)
            ON CONFLICT (mission_id, reason) DO UPDATE
              SET count = ingest_rejections.count + excluded.count
            """, ["mission": event.missionID, "reason": reason, "count": count])
        }
      }
      try Self.insert(kept, connection)
      for (fence, fenceState) in batch.fenceStates.sorted(by: { $0.key < $1.key }) {
        try connection.query(
          """
          INSERT INTO fence_state (mission_id, fence_id, inside, since, dwell_reported, updated)
          VALUES (:mission, :fence, :inside, mt_time(:since), :dwell, mt_time(:updated))
          ON CONFLICT (mission_id, fence_id) DO UPDATE SET inside = excluded.inside,
            since = excluded.since, dwell_reported = excluded.dwell_reported,
            updated = excluded.updated
          """,
          [
            "mission": batch.missionID, "fence": fence, "inside": fenceState.isInside,
            "since": fenceState.insideSince.map(Self.microseconds),
            "dwell": fenceState.dwellReported, "updated": updated,
          ])
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

  private static func refuseStateEvents(_ events: [TrackingEvent]) throws {
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

  /// A track row's key: mission and time in microseconds.
  private struct TrackKey: Hashable {
    var missionID: String
    var time: Int64
    init(_ missionID: String, _ time: Int64) {
      self.missionID = missionID
      self.time = time
    }
  }

  /// Adds the fixes of `events`' fix events to their missions' tracks in one statement; the
  /// keys of the rows added (a fix at a time its track holds is not).
  private static func insertTrack(of events: [TrackingEvent], _ connection: PostgresConnection)
    throws -> Set<TrackKey>
  {
    var missions: [String] = []
    var fixes: [Fix] = []
    for event in events {
      if case .fix(let fix, _, _) = event.kind {
        missions.append(event.missionID)
        fixes.append(fix)
      }
    }
    guard !fixes.isEmpty else { return [] }
    let rows = try connection.query(
      """
      INSERT INTO track (mission_id, time, lat, lon, alt_m, eph_m, speed_mps, course_deg, mode,
        satellites, source)
      SELECT mission, mt_time(time_us), lat, lon, alt, eph, speed, course, mode, satellites,
        source
      FROM unnest(CAST(:missions AS text[]), CAST(:times AS bigint[]), CAST(:lats AS float8[]),
        CAST(:lons AS float8[]), CAST(:alts AS float8[]), CAST(:ephs AS float8[]),
        CAST(:speeds AS float8[]), CAST(:courses AS float8[]), CAST(:modes AS smallint[]),
        CAST(:satellites AS integer[]), CAST(:sources AS text[]))
        AS u(mission, time_us, lat, lon, alt, eph, speed, course, mode, satellites, source)
      ON CONFLICT (mission_id, time) DO NOTHING
      RETURNING mission_id, mt_us(time) AS time_us
      """,
      [
        "missions": PostgresArray(missions),
        "times": PostgresArray(fixes.map { microseconds($0.time) }),
        "lats": PostgresArray(fixes.map(\.coordinate.latitude)),
        "lons": PostgresArray(fixes.map(\.coordinate.longitude)),
        "alts": PostgresArray(fixes.map(\.altitudeMeters)),
        "ephs": PostgresArray(fixes.map(\.horizontalAccuracyMeters)),
        "speeds": PostgresArray(fixes.map(\.speedMetersPerSecond)),
        "courses": PostgresArray(fixes.map(\.courseDegrees)),
        "modes": PostgresArray(fixes.map(\.mode.rawValue)),
        "satellites": PostgresArray(fixes.map(\.satellitesUsed)),
        "sources": PostgresArray(fixes.map(\.source)),
      ])
    return Set(
      (0..<rows.count).map {
        TrackKey(rows.string($0, "mission_id") ?? "", rows.int64($0, "time_us") ?? 0)
      })
  }

  /// Appends `events` to the outbox in order (one statement), each in its typed columns.
  ///
  /// The statement's trigger (schema 3, `PostgresMigration.outbox`) takes a
  /// transaction-scoped advisory lock first and holds it to the transaction's end, so events
  /// get their numbers in commit order: a reader that saw number n has seen every event
  /// before it, and following the log by number (`/v1/events`, the outbox's cursors) never
  /// skips one committed late by another node or connection.
  static func insert(_ events: [TrackingEvent], _ connection: PostgresConnection) throws {
    guard !events.isEmpty else { return }
    let columns = events.map { EventKindColumns($0.kind) }
    try connection.query(
      """
      INSERT INTO events (mission_id, worker_id, type, time, distance_m, travelled_m, fence_id,
        initial, seconds, from_state, to_state, status, detail, count, watch_id)
      SELECT mission, worker, type, mt_time(time_us), distance, travelled, fence, initial,
        seconds, from_state, to_state, status, detail, count, watch
      FROM unnest(CAST(:missions AS text[]), CAST(:workers AS text[]), CAST(:types AS text[]),
        CAST(:times AS bigint[]), CAST(:distances AS float8[]), CAST(:travelled AS float8[]),
        CAST(:fences AS text[]), CAST(:initials AS boolean[]), CAST(:seconds AS float8[]),
        CAST(:froms AS text[]), CAST(:tos AS text[]), CAST(:statuses AS text[]),
        CAST(:details AS text[]), CAST(:counts AS bigint[]), CAST(:watches AS text[]))
        WITH ORDINALITY AS u(mission, worker, type, time_us, distance, travelled, fence,
          initial, seconds, from_state, to_state, status, detail, count, watch, position)
      ORDER BY position
      """,
      [
        "missions": PostgresArray(events.map(\.missionID)),
        "workers": PostgresArray(events.map(\.workerID)),
        "types": PostgresArray(events.map(\.type)),
        "times": PostgresArray(events.map { microseconds($0.time) }),
        "distances": PostgresArray(columns.map(\.distance)),
        "travelled": PostgresArray(columns.map(\.travelled)),
        "fences": PostgresArray(columns.map(\.fence)),
        "initials": PostgresArray(columns.map(\.initial)),
        "seconds": PostgresArray(columns.map(\.seconds)),
        "froms": PostgresArray(columns.map(\.from)), "tos": PostgresArray(columns.map(\.to)),
        "statuses": PostgresArray(columns.map(\.status)),
        "details": PostgresArray(columns.map(\.detail)),
        "counts": PostgresArray(columns.map(\.count)),
        "watches": PostgresArray(columns.map(\.watch)),
      ])
  }
}
