import Foundation
import MissionTracking

extension MissionDatabase {
  /// Fixes per multi-row INSERT. One statement for many rows saves SQLite's per-statement
  /// work (step, reset, program start) on the hottest path; 32 rows × 11 values stays far
  /// below SQLite's limit on parameters.
  static let fixRunLength = 32

  /// `INSERT OR IGNORE INTO track … VALUES (…) × k RETURNING mission_id, time_us`, by k.
  /// RETURNING reports only the rows actually inserted, which tells replays apart.
  static let trackRunSQL: [String] = (0...fixRunLength).map { count in
    """
    INSERT OR IGNORE INTO track (mission_id, time_us, lat, lon, alt_m, eph_m, speed_mps,
      course_deg, mode, satellites, source) VALUES
    """
      + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
      + " RETURNING time_us"
  }

  /// `INSERT INTO events … VALUES (…) × k`, by k. A compact fix event binds an empty
  /// `json` and its `distance_m`, `travelled_m` (schema version 2).
  static let eventRunSQL: [String] = (0...fixRunLength).map { count in
    "INSERT INTO events (mission_id, type, time_us, json, distance_m, travelled_m) VALUES "
      + Array(repeating: "(?, 'fix', ?, ?, ?, ?)", count: count).joined(separator: ", ")
  }

  /// `INSERT INTO track … VALUES (…) × k` without conflict handling, by k: the fast path.
  /// A fix at a time the track already holds makes it fail as a whole (SQLite undoes the
  /// statement, not the transaction) and the run is redone with `trackRunSQL`. Without
  /// RETURNING, SQLite streams the rows straight into the b-tree.
  static let trackPlainRunSQL: [String] = (0...fixRunLength).map { count in
    """
    INSERT INTO track (mission_id, time_us, lat, lon, alt_m, eph_m, speed_mps,
      course_deg, mode, satellites, source) VALUES
    """
      + Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: count).joined(separator: ", ")
  }

  /// SQLite's extended result code for a PRIMARY KEY conflict.
  static let primaryKeyConflict = 1555

  /// The statement for `sql[count]`, prepared once per connection and held in `slots`.
  private func runStatement(
    _ slots: inout [SQLiteStatement?], _ sql: [String], count: Int,
    _ connection: SQLiteConnection
  ) throws -> SQLiteStatement {
    if slots.isEmpty { slots = Array(repeating: nil, count: Self.fixRunLength + 1) }
    if let statement = slots[count] { return statement }
    let statement = try connection.prepare(sql[count])
    slots[count] = statement
    return statement
  }

  /// Binds the fixes of `events` as consecutive 11-value rows of a track insert.
  private func bindFixes(
    _ events: ArraySlice<TrackingEvent>, missionID: String, to track: SQLiteStatement
  ) throws {
    var index: Int32 = 1
    for event in events {
      guard case .fix(let fix, _, _) = event.kind else { continue }
      try track.bind(missionID, at: index)
      try track.bind(microseconds(fix.time), at: index + 1)
      try track.bind(fix.coordinate.latitude, at: index + 2)
      try track.bind(fix.coordinate.longitude, at: index + 3)
      try track.bind(fix.altitudeMeters, at: index + 4)
      try track.bind(fix.horizontalAccuracyMeters, at: index + 5)
      try track.bind(fix.speedMetersPerSecond, at: index + 6)
      try track.bind(fix.courseDegrees, at: index + 7)
      try track.bind(fix.mode.rawValue, at: index + 8)
      try track.bind(fix.satellitesUsed, at: index + 9)
      try track.bind(fix.source, at: index + 10)
      index += 11
    }
  }

  /// Writes consecutive `fix` events of one mission (at most `fixRunLength`): their fixes
  /// into the track, and the events of the fixes that were new into the event log, in order.
  /// A fix whose time the track already holds (a replay) is skipped with its event.
  func writeFixRun(
    _ events: ArraySlice<TrackingEvent>, _ connection: SQLiteConnection,
    _ delta: inout IngestCounters
  ) throws {
    guard let missionID = events.first?.missionID else { return }
    // Fast path: every fix is new (live tracking, a fresh replay).
    let plain = try runStatement(
      &trackPlainRuns, Self.trackPlainRunSQL, count: events.count, connection)
    try bindFixes(events, missionID: missionID, to: plain)
    do {
      try plain.run()
      try writeFixEvents(events, missionID: missionID, connection)
      delta.fixes += events.count
      delta.events += events.count
      return
    } catch StoreError.sqlite(let code, _, _) where code == Self.primaryKeyConflict {
      // Some fix is already stored (or repeated in the run): the statement changed nothing.
    }
    let track = try runStatement(&trackRuns, Self.trackRunSQL, count: events.count, connection)
    try bindFixes(events, missionID: missionID, to: track)
    var inserted: Set<Int64> = []
    inserted.reserveCapacity(events.count)
    while try track.step() { inserted.insert(track.int64(at: 0)) }
    track.rewind()

    var kept: [TrackingEvent] = []
    kept.reserveCapacity(events.count)
    for event in events {
      guard case .fix(let fix, _, _) = event.kind else { continue }
      // `remove` also keeps a time repeated inside the run from being logged twice.
      if inserted.remove(microseconds(fix.time)) != nil {
        kept.append(event)
      } else {
        delta.duplicateFixes += 1
      }
    }
    guard !kept.isEmpty else { return }
    try writeFixEvents(kept[...], missionID: missionID, connection)
    delta.fixes += kept.count
    delta.events += kept.count
  }

  /// Appends the events of fixes just stored to the event log, compactly where the line
  /// can be rebuilt exactly (see `rebuildsExactly`).
  private func writeFixEvents(
    _ events: ArraySlice<TrackingEvent>, missionID: String, _ connection: SQLiteConnection
  ) throws {
    let log = try runStatement(&eventRuns, Self.eventRunSQL, count: events.count, connection)
    var index: Int32 = 1
    for event in events {
      guard case .fix(let fix, let distance, let travelled) = event.kind else { continue }
      let time = microseconds(event.time)
      try log.bind(missionID, at: index)
      try log.bind(time, at: index + 1)
      if Self.rebuildsExactly(fix, distance, travelled, eventTime: event.time, stored: time) {
        try log.bind("", at: index + 2)
        try log.bind(distance, at: index + 3)
        try log.bind(travelled, at: index + 4)
      } else {
        try log.bind(event.jsonLine, at: index + 2)
        try log.bind(distance, at: index + 3)
        try log.bind(travelled, at: index + 4)
      }
      index += 5
    }
    try log.run()
  }

  /// Whether a fix event's JSON line comes back byte-identical when rebuilt from its track
  /// row and the stored distance and travelled numbers (see `storedEvent(from:)`): the event
  /// time is the fix's time (same stored microseconds) and prints the same after the
  /// microsecond rounding, and every number is finite and not `-0.0` (SQLite may store an
  /// integral REAL as an integer, which would lose the sign of zero; a non-finite value
  /// prints `null` but would be read back as NULL, absent, or not stored at all).
  static func rebuildsExactly(
    _ fix: Fix, _ distance: Double, _ travelled: Double, eventTime: Date, stored: Int64
  ) -> Bool {
    guard microseconds(fix.time) == stored,
      (eventTime.timeIntervalSince1970 * 1000).rounded()
        == (date(microseconds: stored).timeIntervalSince1970 * 1000).rounded()
    else { return false }
    func plain(_ value: Double) -> Bool { value.isFinite && !(value == 0 && value.sign == .minus) }
    func plain(_ value: Double?) -> Bool { value.map(plain) ?? true }
    return plain(distance) && plain(travelled) && plain(fix.coordinate.latitude)
      && plain(fix.coordinate.longitude) && plain(fix.altitudeMeters)
      && plain(fix.horizontalAccuracyMeters) && plain(fix.speedMetersPerSecond)
      && plain(fix.courseDegrees)
  }
}
