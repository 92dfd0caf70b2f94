import Foundation
import MissionFiles
import MissionTracking
import TextRules

/// Reading the outbox, the track and the missions back.
extension PostgresDatabase {
  /// The stored events of mission `id` and of worker `worker` (every mission, every worker
  /// when nil; ids in any Unicode normalisation form) with a sequence number above
  /// `afterSequence`, in sequence order, at most `limit`. A fix event's fix is its track row.
  /// - Complexity: O(n) in the events returned (index range scan).
  package func events(
    ofMission id: String? = nil, ofWorker worker: String? = nil, afterSequence: Int64 = 0,
    limit: Int? = nil
  ) throws -> [PostgresStoredEvent] {
    try withConnection { connection in
      let rows = try connection.query(
        """
        SELECT e.seq, e.mission_id, e.worker_id, e.type, mt_us(e.time) AS event_us,
          e.distance_m, e.travelled_m, e.fence_id, e.initial, e.seconds, e.from_state,
          e.to_state, e.status, e.detail, e.count, e.watch_id,
          mt_us(t.time) AS time_us, t.lat, t.lon, t.alt_m, t.eph_m, t.speed_mps, t.course_deg,
          t.mode, t.satellites, t.source
        FROM events e
        LEFT JOIN track t ON e.type = 'fix' AND t.mission_id = e.mission_id AND t.time = e.time
        WHERE (CAST(:mission AS text) IS NULL OR e.mission_id = :mission)
          AND (CAST(:worker AS text) IS NULL OR e.worker_id = :worker) AND e.seq > :after
        ORDER BY e.seq LIMIT :limit
        """,
        [
          "mission": id.map(MissionID.normalized), "worker": worker.map(Identifier.normalized),
          "after": afterSequence, "limit": limit,
        ])
      let fixes = Self.fixes(rows)
      return try (0..<rows.count).map { row in
        let type = rows.string(row, "type") ?? ""
        let kind: TrackingEvent.Kind
        switch type {
        case "fix":
          kind = .fix(
            fixes[row], distanceToMissionMeters: rows.double(row, "distance_m") ?? 0,
            travelledMeters: rows.double(row, "travelled_m") ?? 0)
        case "enter":
          kind = .enter(
            fenceID: rows.string(row, "fence_id") ?? "",
            distanceMeters: rows.double(row, "distance_m") ?? 0,
            initial: rows.bool(row, "initial") ?? false)
        case "dwell":
          kind = .dwell(
            fenceID: rows.string(row, "fence_id") ?? "",
            dwellSeconds: rows.double(row, "seconds") ?? 0)
        case "exit":
          kind = .exit(
            fenceID: rows.string(row, "fence_id") ?? "",
            distanceMeters: rows.double(row, "distance_m") ?? 0)
        case "crossed":
          kind = .crossed(
            fenceID: rows.string(row, "fence_id") ?? "",
            closestDistanceMeters: rows.double(row, "distance_m") ?? 0)
        case "state":
          kind = .state(
            from: try Self.state(rows.string(row, "from_state")),
            to: try Self.state(rows.string(row, "to_state")))
        case "source":
          guard let status = rows.string(row, "status").flatMap(SourceStatus.Kind.init) else {
            throw PostgresError(kind: .other, message: "unknown source status in event")
          }
          kind = .source(status, detail: rows.string(row, "detail") ?? "")
        case "rejected":
          kind = .rejected(
            reason: rows.string(row, "status") ?? "",
            count: Int(rows.int64(row, "count") ?? 0))
        case "mission_nearby":
          kind = .nearby(
            watchID: rows.string(row, "watch_id") ?? "",
            distanceMeters: rows.double(row, "distance_m") ?? 0)
        default:
          throw PostgresError(kind: .other, message: "unknown event type \(type)")
        }
        return PostgresStoredEvent(
          sequence: rows.int64(row, "seq") ?? 0,
          event: TrackingEvent(
            time: Self.date(microseconds: rows.int64(row, "event_us") ?? 0),
            missionID: rows.string(row, "mission_id") ?? "",
            workerID: rows.string(row, "worker_id"), kind: kind))
      }
    }
  }

  /// The delivered track of mission `id`, in time order.
  package func track(ofMission id: String) throws -> [Fix] {
    try withConnection { connection in
      Self.fixes(
        try connection.query(
          "SELECT \(Self.trackColumns) FROM track WHERE mission_id = :id ORDER BY time",
          ["id": id]))
    }
  }

  /// The stored form of mission `id`, nil when there is none.
  package func mission(_ id: String) throws -> Mission? {
    try withConnection { connection in
      try Self.missions(
        connection.query(
          "SELECT \(Self.missionColumns) FROM missions WHERE id = :id", ["id": id])
      ).first
    }
  }
}
