import Foundation
import MissionCatalog
import MissionFiles
import MissionTracking
import TextRules

extension MissionDatabase {
  /// The delivered fixes of mission `id`, ordered by time (pending events commit first).
  /// - Throws: `StoreError.missionNotFound`, `StoreError.sqlite`.
  /// - Complexity: O(n) in the track's length (primary-key range scan).
  package func track(ofMission id: String) throws -> [Fix] {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try ensureKnownLocked(id, connection)
      try commitPendingLocked(connection)
      let select = try connection.cached(
        """
        SELECT time_us, lat, lon, alt_m, eph_m, speed_mps, course_deg, mode, satellites, source
        FROM track WHERE mission_id = :id ORDER BY time_us
        """)
      defer { select.reset() }
      try select.bind(["id": id])
      let columns = try FixColumns(select)
      var fixes: [Fix] = []
      while try select.step() { fixes.append(fix(from: select, columns)) }
      return fixes
    }
  }

  /// The columns of a track row in a statement, resolved once per query.
  struct FixColumns {
    let time, lat, lon, altitude, accuracy, speed, course, mode, satellites,
      source: SQLiteStatement.Column

    /// The columns of `statement` (`time_us, lat, lon, alt_m, eph_m, speed_mps, course_deg,
    /// mode, satellites, source`).
    /// - Throws: `StoreError` when it lacks one.
    init(_ statement: SQLiteStatement) throws {
      time = try statement.column("time_us")
      lat = try statement.column("lat")
      lon = try statement.column("lon")
      altitude = try statement.column("alt_m")
      accuracy = try statement.column("eph_m")
      speed = try statement.column("speed_mps")
      course = try statement.column("course_deg")
      mode = try statement.column("mode")
      satellites = try statement.column("satellites")
      source = try statement.column("source")
    }
  }

  /// The current row's fix, its track columns at `columns`; `time` when given instead of
  /// the row's (an event's, whose track row has the same).
  func fix(from row: SQLiteStatement, _ columns: FixColumns, time: Date? = nil) -> Fix {
    Fix(
      time: time ?? date(microseconds: row.int64(columns.time)),
      coordinate: Coordinate(
        uncheckedLatitude: row.double(columns.lat), longitude: row.double(columns.lon)),
      mode: FixMode(rawValue: Int(row.optionalInt64(columns.mode) ?? 3)) ?? .threeD,
      source: row.string(columns.source) ?? "",
      altitudeMeters: row.optionalDouble(columns.altitude),
      horizontalAccuracyMeters: row.optionalDouble(columns.accuracy),
      speedMetersPerSecond: row.optionalDouble(columns.speed),
      courseDegrees: row.optionalDouble(columns.course),
      satellitesUsed: row.optionalInt64(columns.satellites).map { Int($0) })
  }

  /// The stored events of mission `id` and of worker `worker` (of every mission, every
  /// worker when nil) with a sequence number above `afterSequence`, oldest first, at most
  /// `limit` (pending events commit first).
  ///
  /// Pass the last sequence seen to tail the log. An unknown worker has no events (it may
  /// have been removed: its events stay).
  /// - Throws: `StoreError.missionNotFound` for an unknown mission, `StoreError.sqlite`.
  /// - Complexity: O(n) in the events returned (index range scan of `events_by_mission` or
  ///   `events_by_worker`).
  package func events(
    ofMission id: String? = nil, ofWorker worker: String? = nil, afterSequence: Int64 = 0,
    limit: Int? = nil
  ) throws -> [StoredEvent] {
    let id = id.map(MissionID.normalized)
    let worker = worker.map(Identifier.normalized)
    return try withConnection { connection in
      if let id { try ensureKnownLocked(id, connection) }
      try commitPendingLocked(connection)
      var conditions = ["e.seq > :after"]
      var arguments: StatementArguments = ["after": afterSequence, "limit": Int64(limit ?? -1)]
      if let id {
        conditions.append("e.mission_id = :id")
        arguments.append("id", id)
      }
      if let worker {
        conditions.append("e.worker_id = :worker")
        arguments.append("worker", worker)
      }
      let select = try connection.cached(
        """
        SELECT \(Self.eventColumns) WHERE \(conditions.joined(separator: " AND "))
        ORDER BY e.seq LIMIT :limit
        """)
      defer { select.reset() }
      try select.bind(arguments)
      let columns = try EventColumns(select)
      var events: [StoredEvent] = []
      while try select.step() { events.append(storedEvent(from: select, columns)) }
      return events
    }
  }

  /// The columns of an event row and, for a `fix` event, of its track row (same mission
  /// and time) that holds its fix, each named (`EventColumns`).
  static let eventColumns = """
    e.seq AS seq, e.mission_id AS mission_id, e.type AS type, e.time_us AS time_us,
      e.json AS json, e.distance_m AS distance_m, e.travelled_m AS travelled_m,
      t.lat AS lat, t.lon AS lon, t.alt_m AS alt_m, t.eph_m AS eph_m,
      t.speed_mps AS speed_mps, t.course_deg AS course_deg, e.fence_id AS fence_id,
      e.initial AS initial, e.seconds AS seconds, e.from_state AS from_state,
      e.to_state AS to_state, e.status AS status, e.detail AS detail, e.count AS count,
      t.mode AS mode, t.satellites AS satellites, t.source AS source,
      e.worker_id AS worker_id, e.watch_id AS watch_id
    FROM events AS e LEFT JOIN track AS t
      ON e.type = 'fix' AND t.mission_id = e.mission_id AND t.time_us = e.time_us
    """

  /// The columns of `eventColumns` in a statement, resolved once per query.
  struct EventColumns {
    let sequence, missionID, type, time, json, distance, travelled, fence, initial, seconds,
      fromState, toState, status, detail, count, worker, watch: SQLiteStatement.Column
    /// The fix's columns (of the track row; `time_us` is the event's, the same).
    let fix: FixColumns

    /// The columns of `statement`.
    /// - Throws: `StoreError` when it lacks one.
    init(_ statement: SQLiteStatement) throws {
      sequence = try statement.column("seq")
      missionID = try statement.column("mission_id")
      type = try statement.column("type")
      time = try statement.column("time_us")
      json = try statement.column("json")
      distance = try statement.column("distance_m")
      travelled = try statement.column("travelled_m")
      fence = try statement.column("fence_id")
      initial = try statement.column("initial")
      seconds = try statement.column("seconds")
      fromState = try statement.column("from_state")
      toState = try statement.column("to_state")
      status = try statement.column("status")
      detail = try statement.column("detail")
      count = try statement.column("count")
      worker = try statement.column("worker_id")
      watch = try statement.column("watch_id")
      fix = try FixColumns(statement)
    }
  }

  /// The event of a row of `eventColumns`, with the line it prints: rebuilt from the typed
  /// columns, or the stored text where there is one (rows of older versions, and fix
  /// events whose line would not rebuild byte for byte).
  func storedEvent(from row: SQLiteStatement, _ columns: EventColumns) -> StoredEvent {
    let missionID = row.string(columns.missionID) ?? ""
    let time = date(microseconds: row.int64(columns.time))
    let text = row.string(columns.json) ?? ""
    let distance = row.optionalDouble(columns.distance) ?? .nan
    let fence = row.string(columns.fence) ?? missionID
    let kind: TrackingEvent.Kind
    switch row.string(columns.type) ?? "" {
    case "fix":
      kind = .fix(
        fix(from: row, columns.fix, time: time), distanceToMissionMeters: distance,
        travelledMeters: row.optionalDouble(columns.travelled) ?? .nan)
    case "enter":
      kind = .enter(
        fenceID: fence, distanceMeters: distance, initial: row.int64(columns.initial) != 0)
    case "dwell":
      kind = .dwell(fenceID: fence, dwellSeconds: row.optionalDouble(columns.seconds) ?? .nan)
    case "exit":
      kind = .exit(fenceID: fence, distanceMeters: distance)
    case "crossed":
      kind = .crossed(fenceID: fence, closestDistanceMeters: distance)
    case "state":
      kind = .state(
        from: MissionState(rawValue: row.string(columns.fromState) ?? "") ?? .open,
        to: MissionState(rawValue: row.string(columns.toState) ?? "") ?? .open)
    case "rejected":
      kind = .rejected(
        reason: row.string(columns.status) ?? "",
        count: Int(row.optionalInt64(columns.count) ?? 0))
    case "mission_nearby":
      kind = .nearby(watchID: row.string(columns.watch) ?? "", distanceMeters: distance)
    default:
      kind = .source(
        SourceStatus.Kind(rawValue: row.string(columns.status) ?? "") ?? .disconnected,
        detail: row.string(columns.detail) ?? "")
    }
    let event = TrackingEvent(
      time: time, missionID: missionID, workerID: row.string(columns.worker), kind: kind)
    return StoredEvent(
      sequence: row.int64(columns.sequence), event: event, jsonLine: text.isEmpty ? nil : text)
  }

  /// The events of mission `id` as JSON lines (no newlines), oldest first.
  package func eventLines(ofMission id: String) throws -> [String] {
    try events(ofMission: id).map(\.jsonLine)
  }

  /// The geofence state of mission `id` by fence id (pending events commit first).
  package func fenceStates(ofMission id: String) throws -> [String: FenceState] {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try ensureKnownLocked(id, connection)
      try commitPendingLocked(connection)
      return try fenceStatesLocked(id, connection)
    }
  }

  func fenceStatesLocked(_ id: String, _ connection: SQLiteConnection) throws
    -> [String: FenceState]
  {
    let select = try connection.cached(
      """
      SELECT fence_id, inside, since_us, dwell_reported FROM fence_state
      WHERE mission_id = :id
      """)
    defer { select.reset() }
    try select.bind(["id": id])
    var states: [String: FenceState] = [:]
    while try select.step() {
      states[try select.string("fence_id") ?? ""] = FenceState(
        isInside: try select.int64("inside") != 0,
        insideSince: try select.optionalInt64("since_us").map { date(microseconds: $0) },
        dwellReported: try select.int64("dwell_reported") != 0)
    }
    return states
  }

  /// Reports dropped by cleaning for mission `id`, by reason (sums of `rejected` events).
  package func rejectionCounts(ofMission id: String) throws -> [String: Int] {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try ensureKnownLocked(id, connection)
      try commitPendingLocked(connection)
      let select = try connection.cached(
        "SELECT reason, count FROM ingest_rejections WHERE mission_id = :id")
      defer { select.reset() }
      try select.bind(["id": id])
      var counts: [String: Int] = [:]
      while try select.step() {
        counts[try select.string("reason") ?? ""] = Int(try select.int64("count"))
      }
      return counts
    }
  }

  /// The mission a restarted tracker should continue: the one in state `active` or
  /// `arrived` (the most recently transitioned if, against the rules, there are several),
  /// with its fence states and the end of its track; nil when none is tracking.
  ///
  /// Only committed data is seen: after a crash, that is everything up to the last batch.
  package func activeMission() throws -> ActiveMission? {
    try withConnection { connection in
      try commitPendingLocked(connection)
      let select = try connection.cached(
        """
        SELECT \(Self.missionColumns) FROM missions
        WHERE state IN ('active', 'arrived')
        ORDER BY (SELECT max(seq) FROM transitions t WHERE t.mission_id = missions.id) DESC,
          id LIMIT 1
        """)
      let found = try select.step() ? mission(from: select, try MissionColumns(select)) : nil
      select.reset()
      guard let mission = found else { return nil }
      let lastFix = try lastFixLocked(mission.id, connection)
      let count = try connection.cached(
        "SELECT count(*) AS fixes FROM track WHERE mission_id = :id")
      try count.bind(["id": mission.id])
      let fixCount = try count.step() ? Int(try count.int64("fixes")) : 0
      count.reset()
      return ActiveMission(
        mission: mission, fences: try fenceStatesLocked(mission.id, connection),
        lastFix: lastFix, trackFixCount: fixCount)
    }
  }

  /// The latest fix of mission `id`'s track.
  func lastFixLocked(_ id: String, _ connection: SQLiteConnection) throws -> Fix? {
    let last = try connection.cached(
      """
      SELECT time_us, lat, lon, alt_m, eph_m, speed_mps, course_deg, mode, satellites, source
      FROM track WHERE mission_id = :id ORDER BY time_us DESC LIMIT 1
      """)
    defer { last.reset() }
    try last.bind(["id": id])
    return try last.step() ? fix(from: last, try FixColumns(last)) : nil
  }
}
