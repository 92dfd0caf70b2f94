import Foundation
import MissionFiles
import MissionTracking

extension MissionDatabase {
  /// The delivered fixes of mission `id`, ordered by time (pending events commit first).
  /// - Throws: `StoreError.missionNotFound`, `StoreError.sqlite`.
  /// - Complexity: O(n) in the track's length (primary-key range scan).
  public func track(ofMission id: String) throws -> [Fix] {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try ensureKnownLocked(id, connection)
      try commitPendingLocked(connection)
      let select = try connection.cached(
        """
        SELECT time_us, lat, lon, alt_m, eph_m, speed_mps, course_deg, mode, satellites, source
        FROM track WHERE mission_id = ? ORDER BY time_us
        """)
      defer { select.reset() }
      try select.bind(id, at: 1)
      var fixes: [Fix] = []
      while try select.step() { fixes.append(fix(from: select)) }
      return fixes
    }
  }

  func fix(from row: SQLiteStatement) -> Fix {
    Fix(
      time: date(microseconds: row.int64(at: 0)),
      coordinate: Coordinate(uncheckedLatitude: row.double(at: 1), longitude: row.double(at: 2)),
      mode: FixMode(rawValue: Int(row.int64(at: 7))) ?? .threeD, source: row.string(at: 9) ?? "",
      altitudeMeters: row.optionalDouble(at: 3),
      horizontalAccuracyMeters: row.optionalDouble(at: 4),
      speedMetersPerSecond: row.optionalDouble(at: 5), courseDegrees: row.optionalDouble(at: 6),
      satellitesUsed: row.optionalInt64(at: 8).map { Int($0) })
  }

  /// The stored events of mission `id` (or of every mission when nil) with a sequence number
  /// above `afterSequence`, oldest first, at most `limit` (pending events commit first).
  ///
  /// Pass the last sequence seen to tail the log.
  /// - Complexity: O(n) in the events returned (index range scan).
  public func events(ofMission id: String? = nil, afterSequence: Int64 = 0, limit: Int? = nil)
    throws -> [StoredEvent]
  {
    let id = id.map(MissionID.normalized)
    return try withConnection { connection in
      if let id { try ensureKnownLocked(id, connection) }
      try commitPendingLocked(connection)
      let select =
        if let id {
          try {
            let s = try connection.cached(
              """
              SELECT \(Self.eventColumns) WHERE e.mission_id = ? AND e.seq > ? ORDER BY e.seq
              LIMIT ?
              """)
            try s.bind(id, at: 1)
            try s.bind(afterSequence, at: 2)
            try s.bind(Int64(limit ?? -1), at: 3)
            return s
          }()
        } else {
          try {
            let s = try connection.cached(
              "SELECT \(Self.eventColumns) WHERE e.seq > ? ORDER BY e.seq LIMIT ?")
            try s.bind(afterSequence, at: 1)
            try s.bind(Int64(limit ?? -1), at: 2)
            return s
          }()
        }
      defer { select.reset() }
      var events: [StoredEvent] = []
      while try select.step() { events.append(storedEvent(from: select)) }
      return events
    }
  }

  /// The columns of an event row and, for a `fix` event, of its track row (same mission
  /// and time) that holds its fix.
  static let eventColumns = """
    e.seq, e.mission_id, e.type, e.time_us, e.json, e.distance_m, e.travelled_m,
      t.lat, t.lon, t.alt_m, t.eph_m, t.speed_mps, t.course_deg,
      e.fence_id, e.initial, e.seconds, e.from_state, e.to_state, e.status, e.detail, e.count,
      t.mode, t.satellites, t.source
    FROM events AS e LEFT JOIN track AS t
      ON e.type = 'fix' AND t.mission_id = e.mission_id AND t.time_us = e.time_us
    """

  /// The event of a row of `eventColumns`, with the line it prints: rebuilt from the typed
  /// columns, or the stored text where there is one (rows of older versions, and fix
  /// events whose line would not rebuild byte for byte).
  func storedEvent(from row: SQLiteStatement) -> StoredEvent {
    let missionID = row.string(at: 1) ?? ""
    let time = date(microseconds: row.int64(at: 3))
    let text = row.string(at: 4) ?? ""
    let distance = row.optionalDouble(at: 5) ?? .nan
    let fence = row.string(at: 13) ?? missionID
    let kind: TrackingEvent.Kind
    switch row.string(at: 2) ?? "" {
    case "fix":
      let fix = Fix(
        time: time,
        coordinate: Coordinate(uncheckedLatitude: row.double(at: 7), longitude: row.double(at: 8)),
        mode: FixMode(rawValue: Int(row.optionalInt64(at: 21) ?? 3)) ?? .threeD,
        source: row.string(at: 23) ?? "", altitudeMeters: row.optionalDouble(at: 9),
        horizontalAccuracyMeters: row.optionalDouble(at: 10),
        speedMetersPerSecond: row.optionalDouble(at: 11), courseDegrees: row.optionalDouble(at: 12),
        satellitesUsed: row.optionalInt64(at: 22).map { Int($0) })
      kind = .fix(
        fix, distanceToMissionMeters: distance, travelledMeters: row.optionalDouble(at: 6) ?? .nan)
    case "enter":
      kind = .enter(fenceID: fence, distanceMeters: distance, initial: row.int64(at: 14) != 0)
    case "dwell":
      kind = .dwell(fenceID: fence, dwellSeconds: row.optionalDouble(at: 15) ?? .nan)
    case "exit":
      kind = .exit(fenceID: fence, distanceMeters: distance)
    case "crossed":
      kind = .crossed(fenceID: fence, closestDistanceMeters: distance)
    case "state":
      kind = .state(
        from: MissionState(rawValue: row.string(at: 16) ?? "") ?? .open,
        to: MissionState(rawValue: row.string(at: 17) ?? "") ?? .open)
    case "rejected":
      kind = .rejected(reason: row.string(at: 18) ?? "", count: Int(row.optionalInt64(at: 20) ?? 0))
    default:
      kind = .source(
        SourceStatus.Kind(rawValue: row.string(at: 18) ?? "") ?? .disconnected,
        detail: row.string(at: 19) ?? "")
    }
    let event = TrackingEvent(time: time, missionID: missionID, kind: kind)
    return StoredEvent(
      sequence: row.int64(at: 0), event: event, jsonLine: text.isEmpty ? nil : text)
  }

  /// The events of mission `id` as JSON lines (no newlines), oldest first.
  public func eventLines(ofMission id: String) throws -> [String] {
    try events(ofMission: id).map(\.jsonLine)
  }

  /// The geofence state of mission `id` by fence id (pending events commit first).
  public func fenceStates(ofMission id: String) throws -> [String: FenceState] {
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
      "SELECT fence_id, inside, since_us, dwell_reported FROM fence_state WHERE mission_id = ?")
    defer { select.reset() }
    try select.bind(id, at: 1)
    var states: [String: FenceState] = [:]
    while try select.step() {
      states[select.string(at: 0) ?? ""] = FenceState(
        isInside: select.int64(at: 1) != 0,
        insideSince: select.optionalInt64(at: 2).map { date(microseconds: $0) },
        dwellReported: select.int64(at: 3) != 0)
    }
    return states
  }

  /// Reports dropped by cleaning for mission `id`, by reason (sums of `rejected` events).
  public func rejectionCounts(ofMission id: String) throws -> [String: Int] {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try ensureKnownLocked(id, connection)
      try commitPendingLocked(connection)
      let select = try connection.cached(
        "SELECT reason, count FROM ingest_rejections WHERE mission_id = ?")
      defer { select.reset() }
      try select.bind(id, at: 1)
      var counts: [String: Int] = [:]
      while try select.step() { counts[select.string(at: 0) ?? ""] = Int(select.int64(at: 1)) }
      return counts
    }
  }

  /// The mission a restarted tracker should continue: the one in state `active` or
  /// `arrived` (the most recently transitioned if, against the rules, there are several),
  /// with its fence states and the end of its track; nil when none is tracking.
  ///
  /// Only committed data is seen: after a crash, that is everything up to the last batch.
  public func activeMission() throws -> ActiveMission? {
    try withConnection { connection in
      try commitPendingLocked(connection)
      let select = try connection.cached(
        """
        SELECT \(Self.missionColumns) FROM missions
        WHERE state IN ('active', 'arrived')
        ORDER BY (SELECT max(seq) FROM transitions t WHERE t.mission_id = missions.id) DESC,
          id LIMIT 1
        """)
      let found = try select.step() ? mission(from: select) : nil
      select.reset()
      guard let mission = found else { return nil }
      let lastFix = try lastFixLocked(mission.id, connection)
      let count = try connection.cached("SELECT count(*) FROM track WHERE mission_id = ?")
      try count.bind(mission.id, at: 1)
      let fixCount = try count.step() ? Int(count.int64(at: 0)) : 0
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
      FROM track WHERE mission_id = ? ORDER BY time_us DESC LIMIT 1
      """)
    defer { last.reset() }
    try last.bind(id, at: 1)
    return try last.step() ? fix(from: last) : nil
  }
}
