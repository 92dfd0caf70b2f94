import Foundation
import MissionTracking

/// Recording what the engine decided for tracking sessions: a report's events, the track of
/// its fixes, its fence states and the travelled distance — many workers' batches in one
/// transaction.
extension PostgresDatabase {
  /// Records the events of one report, the track of its fixes, its fence states and the
  /// travelled distance, in one transaction, while the mission is tracked
  /// (`record(contentsOf:)` of one batch).
  /// - Throws: `TrackingError.changedElsewhere` when another node took the mission out of
  ///   tracking, `.decidedElsewhere` when another node recorded a batch of the session since
  ///   `batch.basedOnVersion` (nothing is recorded either way), `.unknownMission`,
  ///   `PostgresError`.
  package func record(_ batch: TrackingBatch) throws {
    if let error = record(contentsOf: [batch]).first ?? nil { throw error }
  }

  /// Records `batches` in one transaction that commits without waiting for the disk (the
  /// next `flush()` waits for it): each mission's events, track, fence states and travelled
  /// distance while it is tracked. A fix at a time the track already holds is a resent one:
  /// it is skipped with its event.
  ///
  /// A mission's consecutive batches are written as one (`PostgresSessionWrite`). Its row in
  /// `tracking_sessions` is written first, which locks it to the transaction's end: batches
  /// decided from version v are recorded only while the row holds v (then v + their
  /// number), so two nodes deciding one worker's positions at once serialize here and the
  /// one that decided from an older state records nothing for that mission. Rows are locked
  /// in mission order, and the outbox's lock is taken last, so groups of two nodes neither
  /// deadlock nor hold up each other's outbox for long.
  /// - Returns: For each batch, nil when it is recorded, else `TrackingError`
  ///   `.changedElsewhere` (another node took the mission out of tracking),
  ///   `.decidedElsewhere`, `.unknownMission`, or the store's error (every batch's then).
  package func record(contentsOf batches: [TrackingBatch]) -> [(any Error)?] {
    var results = [(any Error)?](repeating: nil, count: batches.count)
    var writes: [PostgresSessionWrite] = []
    var writeOfMission: [String: Int] = [:]
    for (index, batch) in batches.enumerated() {
      do {
        try Self.refuseStateEvents(batch.events)
      } catch {
        results[index] = error
        continue
      }
      if let position = writeOfMission[batch.missionID] {
        if !writes[position].append(batch, index: index) {
          results[index] = TrackingError.decidedElsewhere(
            missionID: batch.missionID, workerID: batch.workerID)
        }
      } else {
        writeOfMission[batch.missionID] = writes.count
        writes.append(PostgresSessionWrite(batch, index: index))
      }
    }
    guard !writes.isEmpty else { return results }
    do {
      let refusals: [String: TrackingError]
      do {
        refusals = try transactionNotWaitingForDisk { connection in
          try Self.record(writes, copyingTrack: true, connection)
        }
      } catch let error as PostgresError
        where error.kind == .uniqueViolation && error.constraint == "track_pkey"
      {
        // A resent fix: again, each fix inserted unless its track holds it.
        refusals = try transactionNotWaitingForDisk { connection in
          try Self.record(writes, copyingTrack: false, connection)
        }
      }
      for write in writes {
        guard let refusal = refusals[write.missionID] else { continue }
        for index in write.indexes { results[index] = refusal }
      }
    } catch {
      for write in writes {
        for index in write.indexes { results[index] = error }
      }
    }
    return results
  }

  // MARK: - Internals

  /// Writes `writes` in the current transaction; the refusal of each mission not written.
  /// - Parameter copyingTrack: Add the fixes with one `COPY`, which fails on a fix the track
  ///   holds (then nothing may be kept: the caller runs it again without).
  private static func record(
    _ writes: [PostgresSessionWrite], copyingTrack: Bool, _ connection: PostgresConnection
  ) throws -> [String: TrackingError] {
    let written = try writeSessions(writes, connection)
    let refused = writes.filter { !written.contains($0.missionID) }
    let refusals = try refusals(of: refused, connection)
    let kept = writes.filter { written.contains($0.missionID) }
    let events = kept.flatMap(\.events)
    let recorded: [TrackingEvent]
    if copyingTrack {
      try copyTrack(of: events, connection)
      recorded = events
    } else {
      // A fix the track already holds (a resent batch) is skipped with its event.
      var added = try insertTrack(of: events, connection)
      recorded = events.filter { event in
        guard case .fix(let fix, _, _) = event.kind else { return true }
        return added.remove(TrackKey(event.missionID, microseconds(fix.time))) != nil
      }
    }
    try addRejections(of: recorded, connection)
    try writeFenceStates(of: kept, connection)
    // Last: the outbox's lock is held from here to the commit.
    try insert(recorded, connection)
    return refusals
  }

  /// Why each of `refused` was not written: its mission is unknown, out of tracking, or
  /// another node recorded its session since.
  private static func refusals(
    of refused: [PostgresSessionWrite], _ connection: PostgresConnection
  ) throws -> [String: TrackingError] {
    guard !refused.isEmpty else { return [:] }
    let stored = try connection.query(
      "SELECT id, state FROM missions WHERE id = ANY (CAST(:ids AS text[]))",
      ["ids": PostgresArray(refused.map(\.missionID))])
    var states: [String: MissionState] = [:]
    for row in 0..<stored.count {
      if let id = stored.string(row, "id") { states[id] = try state(stored.string(row, "state")) }
    }
    var refusals: [String: TrackingError] = [:]
    for write in refused {
      guard let state = states[write.missionID] else {
        refusals[write.missionID] = .unknownMission(write.missionID)
        continue
      }
      refusals[write.missionID] =
        state.isTracking
        ? .decidedElsewhere(missionID: write.missionID, workerID: write.workerID)
        : .changedElsewhere(missionID: write.missionID, state: state)
    }
    return refusals
  }

  /// Writes the session row of each of `writes` whose mission is tracked, in mission order,
  /// where it still holds the version its batches were decided from (or is new); the
  /// missions written.
  ///
  /// The missions' rows are locked `FOR SHARE` first, in the same statement: a transition
  /// of one waits until the batch commits, and a batch after a stop sees the stop.
  private static func writeSessions(
    _ writes: [PostgresSessionWrite], _ connection: PostgresConnection
  ) throws -> Set<String> {
    guard !writes.isEmpty else { return [] }
    // No row yet: this inserts it, and a node inserting it at the same time waits here,
    // then finds the version moved on.
    let rows = try connection.query(
      """
      WITH u AS (
        SELECT * FROM unnest(CAST(:missions AS text[]), CAST(:workers AS text[]),
          CAST(:travelled AS float8[]), CAST(:updated AS bigint[]), CAST(:based AS bigint[]),
          CAST(:spans AS bigint[])) AS u(mission, worker, travelled, updated_us, based, span)),
      tracked AS (
        SELECT id FROM missions
        WHERE id = ANY (CAST(:missions AS text[])) AND state = ANY (CAST(:tracking AS text[]))
        ORDER BY id FOR SHARE)
      INSERT INTO tracking_sessions (mission_id, worker_id, travelled_m, updated, version)
      SELECT mission, worker, travelled, mt_time(updated_us), coalesce(based, 0) + span
      FROM u JOIN tracked ON tracked.id = u.mission ORDER BY mission
      ON CONFLICT (mission_id) DO UPDATE SET worker_id = excluded.worker_id,
        travelled_m = excluded.travelled_m, updated = excluded.updated,
        version = tracking_sessions.version
          + (SELECT span FROM u WHERE u.mission = excluded.mission_id)
      WHERE tracking_sessions.version = coalesce(
        (SELECT based FROM u WHERE u.mission = excluded.mission_id), tracking_sessions.version)
      RETURNING mission_id
      """,
      [
        "missions": PostgresArray(writes.map(\.missionID)),
        "workers": PostgresArray(writes.map(\.workerID)),
        "travelled": PostgresArray(writes.map(\.travelledMeters)),
        "updated": PostgresArray(writes.map { microseconds($0.updated) }),
        "based": PostgresArray(writes.map(\.basedOnVersion)),
        "spans": PostgresArray(writes.map(\.span)),
        "tracking": PostgresArray(MissionState.allCases.filter(\.isTracking).map(\.rawValue)),
      ])
    return Set((0..<rows.count).compactMap { rows.string($0, "mission_id") })
  }

  /// Adds the `rejected` events' counts to their missions' rejection counts (one statement).
  private static func addRejections(of events: [TrackingEvent], _ connection: PostgresConnection)
    throws
  {
    var counts: [RejectionKey: Int] = [:]
    var order: [RejectionKey] = []
    for event in events {
      guard case .rejected(let reason, let count) = event.kind else { continue }
      let key = RejectionKey(missionID: event.missionID, reason: reason)
      if counts[key] == nil { order.append(key) }
      counts[key, default: 0] += count
    }
    guard !order.isEmpty else { return }
    try connection.query(
      """
      INSERT INTO ingest_rejections (mission_id, reason, count)
      SELECT * FROM unnest(CAST(:missions AS text[]), CAST(:reasons AS text[]),
        CAST(:counts AS bigint[]))
      ON CONFLICT (mission_id, reason) DO UPDATE
        SET count = ingest_rejections.count + excluded.count
      """,
      [
        "missions": PostgresArray(order.map(\.missionID)),
        "reasons": PostgresArray(order.map(\.reason)),
        "counts": PostgresArray(order.map { counts[$0] ?? 0 }),
      ])
  }

  /// Stores the fence states `writes` leave (one statement).
  private static func writeFenceStates(
    of writes: [PostgresSessionWrite], _ connection: PostgresConnection
  ) throws {
    var missions: [String] = []
    var fences: [String] = []
    var states: [FenceState] = []
    var updated: [Int64] = []
    for write in writes {
      for (fence, state) in write.fenceStates.sorted(by: { $0.key < $1.key }) {
        missions.append(write.missionID)
        fences.append(fence)
        states.append(state)
        updated.append(microseconds(write.updated))
      }
    }
    guard !missions.isEmpty else { return }
    try connection.query(
      """
      INSERT INTO fence_state (mission_id, fence_id, inside, since, dwell_reported, updated)
      SELECT mission, fence, inside, mt_time(since_us), dwell, mt_time(updated_us)
      FROM unnest(CAST(:missions AS text[]), CAST(:fences AS text[]),
        CAST(:insides AS boolean[]), CAST(:sinces AS bigint[]), CAST(:dwells AS boolean[]),
        CAST(:updated AS bigint[])) AS u(mission, fence, inside, since_us, dwell, updated_us)
      ON CONFLICT (mission_id, fence_id) DO UPDATE SET inside = excluded.inside,
        since = excluded.since, dwell_reported = excluded.dwell_reported,
        updated = excluded.updated
      """,
      [
        "missions": PostgresArray(missions), "fences": PostgresArray(fences),
        "insides": PostgresArray(states.map(\.isInside)),
        "sinces": PostgresArray(states.map { $0.insideSince.map(microseconds) }),
        "dwells": PostgresArray(states.map(\.dwellReported)),
        "updated": PostgresArray(updated),
      ])
  }

  /// A rejection count's key: mission and reason.
  private struct RejectionKey: Hashable {
    var missionID: String
    var reason: String
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

  /// The fixes of `events`' fix events, with their missions.
  private static func trackRows(of events: [TrackingEvent]) -> (missions: [String], fixes: [Fix]) {
    var missions: [String] = []
    var fixes: [Fix] = []
    for event in events {
      if case .fix(let fix, _, _) = event.kind {
        missions.append(event.missionID)
        fixes.append(fix)
      }
    }
    return (missions, fixes)
  }

  /// Adds the fixes of `events`' fix events to their missions' tracks with one binary
  /// `COPY` (`PostgresCopyBinary`), which the server inserts in batches, about four times
  /// faster per fix than an `INSERT` that checks each one; it fails on a fix its track
  /// holds (`track_pkey`). A batch decided from the stored session only holds fixes after
  /// its track's end, so that is a resent batch recorded unchecked, or a bug.
  /// - Throws: `PostgresError` for a satellite count past `integer` (the column's type).
  private static func copyTrack(of events: [TrackingEvent], _ connection: PostgresConnection)
    throws
  {
    let (missions, fixes) = trackRows(of: events)
    guard !fixes.isEmpty else { return }
    var rows = PostgresCopyBinary(rows: fixes.count, bytesPerRow: 150)
    for (mission, fix) in zip(missions, fixes) {
      rows.row(fields: 11)
      rows.text(mission)
      rows.timestamp(microseconds: microseconds(fix.time))
      rows.float8(fix.coordinate.latitude)
      rows.float8(fix.coordinate.longitude)
      rows.float8(fix.altitudeMeters)
      rows.float8(fix.horizontalAccuracyMeters)
      rows.float8(fix.speedMetersPerSecond)
      rows.float8(fix.courseDegrees)
      rows.int16(Int16(fix.mode.rawValue))
      if let satellites = fix.satellitesUsed {
        guard let fitting = Int32(exactly: satellites) else {
          throw PostgresError(
            kind: .other,
            message: "a fix of mission \(mission) has \(satellites) satellites, past integer")
        }
        rows.int32(fitting)
      } else {
        rows.int32(nil)
      }
      rows.text(fix.source)
    }
    _ = try connection.copy(
      """
      COPY track (mission_id, time, lat, lon, alt_m, eph_m, speed_mps, course_deg, mode,
        satellites, source) FROM STDIN (FORMAT binary)
      """, from: [rows.finish()])
  }

  /// Adds the fixes of `events`' fix events to their missions' tracks in one statement that
  /// checks each; the keys of the rows added (a fix at a time its track holds is not).
  private static func insertTrack(of events: [TrackingEvent], _ connection: PostgresConnection)
    throws -> Set<TrackKey>
  {
    let (missions, fixes) = trackRows(of: events)
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
}
