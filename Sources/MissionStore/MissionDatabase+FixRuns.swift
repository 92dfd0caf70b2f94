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

  /// `INSERT INTO events … VALUES (…) × k`, by k.
  static let eventRunSQL: [String] = (0...fixRunLength).map { count in
    "INSERT INTO events (mission_id, type, time_us, json) VALUES "
      + Array(repeating: "(?, ?, ?, ?)", count: count).joined(separator: ", ")
  }

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

  /// Writes consecutive `fix` events of one mission (at most `fixRunLength`): their fixes
  /// into the track, and the events of the fixes that were new into the event log, in order.
  /// A fix whose time the track already holds (a replay) is skipped with its event.
  func writeFixRun(
    _ events: ArraySlice<TrackingEvent>, _ connection: SQLiteConnection,
    _ delta: inout IngestCounters
  ) throws {
    guard let missionID = events.first?.missionID else { return }
    let track = try runStatement(&trackRuns, Self.trackRunSQL, count: events.count, connection)
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
    let log = try runStatement(&eventRuns, Self.eventRunSQL, count: kept.count, connection)
    index = 1
    for event in kept {
      try log.bind(missionID, at: index)
      try log.bind("fix", at: index + 1)
      try log.bind(microseconds(event.time), at: index + 2)
      try log.bind(event.jsonLine, at: index + 3)
      index += 4
    }
    try log.run()
    delta.fixes += kept.count
    delta.events += kept.count
  }
}
