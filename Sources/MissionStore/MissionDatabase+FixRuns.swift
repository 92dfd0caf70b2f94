import Foundation
import MissionTracking

extension MissionDatabase {
  /// Fixes per multi-row INSERT. One statement for many rows saves SQLite's per-statement
  /// work (step, reset, program start) on the hottest path; 32 rows × 11 values stays far
  /// below SQLite's limit on parameters.
  static let fixRunLength = 32

  /// The parameters of one row of a track insert (`MultiRowStatement`).
  struct TrackRow {
    /// The parameter names of a row, in the order of `trackColumns`.
    static let names = [
      "mission", "time", "lat", "lon", "altitude", "accuracy", "speed", "course", "mode",
      "satellites", "source",
    ]
    /// The track's columns, in the order of `names`.
    static let trackColumns = """
      mission_id, time_us, lat, lon, alt_m, eph_m, speed_mps, course_deg, mode, satellites,
        source
      """
    let mission, time, lat, lon, altitude, accuracy, speed, course, mode, satellites,
      source: SQLiteStatement.Parameter

    /// Row `row`'s parameters in `statement`.
    init(_ statement: SQLiteStatement, row: Int) throws {
      func named(_ name: String) throws -> SQLiteStatement.Parameter {
        try statement.parameter("\(name)\(row)")
      }
      (mission, time, lat, lon) = (
        try named("mission"), try named("time"), try named("lat"), try named("lon")
      )
      (altitude, accuracy, speed, course) = (
        try named("altitude"), try named("accuracy"), try named("speed"), try named("course")
      )
      (mode, satellites, source) = (try named("mode"), try named("satellites"), try named("source"))
    }

    /// `INSERT INTO track … VALUES (…) × count`: without `ignoringStored` the fast path
    /// (a fix at a time the track already holds makes it fail as a whole: SQLite undoes the
    /// statement, not the transaction; without RETURNING, SQLite streams the rows straight
    /// into the b-tree); with it `INSERT OR IGNORE … RETURNING mission_id, time_us`, which
    /// reports only the rows actually inserted and so tells replays apart.
    static func sql(count: Int, ignoringStored: Bool) -> String {
      "INSERT \(ignoringStored ? "OR IGNORE " : "")INTO track (\(trackColumns)) VALUES "
        + MultiRowStatement<TrackRow>.values(names, count: count)
        + (ignoringStored ? " RETURNING mission_id, time_us" : "")
    }
  }

  /// The parameters of one row of an event insert of fix events: a compact fix event binds
  /// an empty `json` and its `distance_m`, `travelled_m` (schema version 2).
  struct FixEventRow {
    /// The parameter names of a row (and its literal type), in the order of the columns.
    static let names = ["mission", "'fix'", "time", "json", "distance", "travelled", "worker"]
    let mission, time, json, distance, travelled, worker: SQLiteStatement.Parameter

    /// Row `row`'s parameters in `statement`.
    init(_ statement: SQLiteStatement, row: Int) throws {
      func named(_ name: String) throws -> SQLiteStatement.Parameter {
        try statement.parameter("\(name)\(row)")
      }
      (mission, time, json, distance, travelled) = (
        try named("mission"), try named("time"), try named("json"), try named("distance"),
        try named("travelled")
      )
      worker = try named("worker")
    }

    /// `INSERT INTO events … VALUES (…) × count`.
    static func sql(count: Int) -> String {
      "INSERT INTO events (mission_id, type, time_us, json, distance_m, travelled_m, worker_id) "
        + "VALUES "
        + MultiRowStatement<FixEventRow>.values(names, count: count)
    }
  }

  /// The statement for `count` rows, prepared once per connection and held in `slots`.
  func runStatement<Row>(
    _ slots: inout [MultiRowStatement<Row>?], count: Int, _ connection: SQLiteConnection,
    sql: (Int) -> String, row: (SQLiteStatement, Int) throws -> Row
  ) throws -> MultiRowStatement<Row> {
    if slots.isEmpty { slots = Array(repeating: nil, count: Self.fixRunLength + 1) }
    if let statement = slots[count] { return statement }
    let statement = try MultiRowStatement(
      connection.prepare(sql(count)), count: count, resolve: row)
    slots[count] = statement
    return statement
  }

  /// Binds the fixes of `events` as consecutive rows of a track insert, each to its event's
  /// mission.
  private func bindFixes(_ events: ArraySlice<TrackingEvent>, to run: MultiRowStatement<TrackRow>)
    throws
  {
    let track = run.statement
    var row = 0
    for event in events {
      guard case .fix(let fix, _, _) = event.kind else { continue }
      let p = run.rows[row]
      try track.bind(event.missionID, to: p.mission)
      try track.bind(microseconds(fix.time), to: p.time)
      try track.bind(fix.coordinate.latitude, to: p.lat)
      try track.bind(fix.coordinate.longitude, to: p.lon)
      try track.bind(fix.altitudeMeters, to: p.altitude)
      try track.bind(fix.horizontalAccuracyMeters, to: p.accuracy)
      try track.bind(fix.speedMetersPerSecond, to: p.speed)
      try track.bind(fix.courseDegrees, to: p.course)
      try track.bind(fix.mode.rawValue, to: p.mode)
      try track.bind(fix.satellitesUsed, to: p.satellites)
      try track.bind(fix.source, to: p.source)
      row += 1
    }
  }

  /// Writes consecutive `fix` events (at most `fixRunLength`, of one mission or of many: a
  /// group of phones' single positions is one run): their fixes into the track, and the
  /// events of the fixes that were new into the event log, in order. A fix whose time its
  /// mission's track already holds (a replay) is skipped with its event.
  func writeFixRun(
    _ events: ArraySlice<TrackingEvent>, _ connection: SQLiteConnection,
    _ delta: inout IngestCounters
  ) throws {
    guard !events.isEmpty else { return }
    // Fast path: every fix is new (live tracking, a fresh replay).
    let plain = try runStatement(
      &trackPlainRuns, count: events.count, connection,
      sql: { TrackRow.sql(count: $0, ignoringStored: false) }, row: TrackRow.init)
    try bindFixes(events, to: plain)
    do {
      try plain.statement.run()
      try writeFixEvents(events, connection)
      delta.fixes += events.count
      delta.events += events.count
      return
    } catch StoreError.constraint(.primaryKey, _, _) {
      // Some fix is already stored (or repeated in the run): the statement changed nothing.
    }
    let run = try runStatement(
      &trackRuns, count: events.count, connection,
      sql: { TrackRow.sql(count: $0, ignoringStored: true) }, row: TrackRow.init)
    try bindFixes(events, to: run)
    let track = run.statement
    let mission = try track.column("mission_id")
    let time = try track.column("time_us")
    // The times inserted, by mission.
    var inserted: [String: Set<Int64>] = [:]
    while try track.step() {
      inserted[track.string(mission) ?? "", default: []].insert(track.int64(time))
    }
    track.rewind()

    var kept: [TrackingEvent] = []
    kept.reserveCapacity(events.count)
    for event in events {
      guard case .fix(let fix, _, _) = event.kind else { continue }
      // `remove` also keeps a time repeated inside the run from being logged twice.
      if inserted[event.missionID]?.remove(microseconds(fix.time)) != nil {
        kept.append(event)
      } else {
        delta.duplicateFixes += 1
      }
    }
    guard !kept.isEmpty else { return }
    try writeFixEvents(kept[...], connection)
    delta.fixes += kept.count
    delta.events += kept.count
  }

  /// Appends the events of fixes just stored to the event log, compactly where the line
  /// can be rebuilt exactly (see `rebuildsExactly`).
  private func writeFixEvents(_ events: ArraySlice<TrackingEvent>, _ connection: SQLiteConnection)
    throws
  {
    let run = try runStatement(
      &eventRuns, count: events.count, connection, sql: FixEventRow.sql(count:),
      row: FixEventRow.init)
    let log = run.statement
    var row = 0
    for event in events {
      guard case .fix(let fix, let distance, let travelled) = event.kind else { continue }
      let time = microseconds(event.time)
      let p = run.rows[row]
      try log.bind(event.missionID, to: p.mission)
      try log.bind(time, to: p.time)
      let exact = Self.rebuildsExactly(
        fix, distance, travelled, eventTime: event.time, stored: time)
      try log.bind(exact ? "" : event.jsonLine, to: p.json)
      try log.bind(distance, to: p.distance)
      try log.bind(travelled, to: p.travelled)
      try log.bind(event.workerID, to: p.worker)
      row += 1
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
