import Foundation
import MissionCatalog
import MissionFiles
import MissionTracking

/// The catalog commands (`missions import`, `list`, `show`, `nearby`) on PostgreSQL: the
/// same answers as the SQLite store for the same missions. Ids are looked up in NFC, as the
/// SQLite store does; missions are ordered by their id's bytes (`COLLATE "C"`, SQLite's
/// `BINARY`), whatever the database's collation.
extension PostgresDatabase: MissionCatalogStore {
  /// Every mission ordered by id, only those in `state` when given.
  /// - Complexity: O(n log n) for n missions read.
  package func missions(inState state: MissionState?) throws -> [Mission] {
    try withConnection { connection in
      try Self.missions(
        connection.query(
          """
          SELECT \(Self.missionColumns) FROM missions
          WHERE CAST(:state AS text) IS NULL OR state = :state ORDER BY id COLLATE "C"
          """, ["state": state?.rawValue]))
    }
  }

  /// The mission with `id` in any Unicode normalisation form (`MissionID`), or nil.
  package func mission(id: String) throws -> Mission? {
    try mission(MissionID.normalized(id))
  }

  /// The audit log of mission `id`, oldest first.
  package func transitions(ofMission id: String) throws -> [MissionTransition] {
    try withConnection { connection in
      let rows = try connection.query(
        """
        SELECT action, from_state, to_state, worker_id, mt_us(time) AS time_us FROM transitions
        WHERE mission_id = :id ORDER BY seq
        """, ["id": MissionID.normalized(id)])
      return try (0..<rows.count).map { row in
        guard let action = rows.string(row, "action").flatMap(MissionAction.init(rawValue:))
        else {
          throw PostgresError(
            kind: .other, message: "unknown action \(rows.string(row, "action") ?? "NULL")")
        }
        return MissionTransition(
          missionID: MissionID.normalized(id), action: action,
          from: try Self.state(rows.string(row, "from_state")),
          to: try Self.state(rows.string(row, "to_state")),
          time: Self.date(microseconds: rows.int64(row, "time_us") ?? 0),
          workerID: rows.string(row, "worker_id"))
      }
    }
  }

  /// The stored geofence states of mission `id`, by fence id.
  package func fenceStates(ofMission id: String) throws -> [String: FenceState] {
    try withConnection { connection in
      try Self.fenceStates(ofMission: MissionID.normalized(id), connection)
    }
  }

  /// The fence states of mission `id` read on `connection` (inside the caller's
  /// transaction, if any).
  static func fenceStates(ofMission id: String, _ connection: PostgresConnection) throws
    -> [String: FenceState]
  {
    try fenceStates(ofMissions: [id], connection)[id] ?? [:]
  }

  /// The stored fence states of each of missions `ids` that has any: mission id → fence id →
  /// state.
  static func fenceStates(ofMissions ids: [String], _ connection: PostgresConnection) throws
    -> [String: [String: FenceState]]
  {
    let rows = try connection.query(
      """
      SELECT mission_id, fence_id, inside, mt_us(since) AS since_us, dwell_reported
      FROM fence_state WHERE mission_id = ANY (CAST(:ids AS text[]))
      """, ["ids": PostgresArray(ids)])
    var fences: [String: [String: FenceState]] = [:]
    for row in 0..<rows.count {
      guard let mission = rows.string(row, "mission_id"), let fence = rows.string(row, "fence_id")
      else { continue }
      fences[mission, default: [:]][fence] = FenceState(
        isInside: rows.bool(row, "inside") ?? false,
        insideSince: rows.int64(row, "since_us").map(Self.date(microseconds:)),
        dwellReported: rows.bool(row, "dwell_reported") ?? false)
    }
    return fences
  }

  /// The missions past their deadline at `now` that can still expire: the lifecycle's
  /// `isDue(at:)` decides on the missions whose deadline is before `now`. Reads only.
  package func dueMissionIDs(at now: Date) throws -> Set<String> {
    let missions = try withConnection { connection in
      try Self.missions(
        connection.query(
          "SELECT \(Self.missionColumns) FROM missions WHERE deadline < mt_time(:now)",
          ["now": Self.microseconds(now)]))
    }
    return Set(missions.filter { MissionLifecycle(mission: $0).isDue(at: now) }.map(\.id))
  }

  /// Expires the due missions, each with its transition (compare-and-set, so a mission
  /// another node changed first is left to it); returns the ids expired here, in order.
  @discardableResult
  package func expireDue(at now: Date) throws -> [String] {
    var expired: [String] = []
    for id in try dueMissionIDs(at: now).sorted() {
      guard let mission = try mission(id),
        let transition = try MissionLifecycle(mission: mission).transition(for: .expire, at: now)
      else { continue }
      do {
        try commit(transition)
        expired.append(id)
      } catch TrackingError.changedElsewhere {
        continue
      }
    }
    return expired
  }

  /// Reads the file's records (`MissionFileReader`) and imports them with `COPY`, all or
  /// nothing (a large CSV streamed while it is validated); a record the database refuses is
  /// named by the file and its line, as the SQLite store names it.
  package func importMissionFile(
    _ bytes: [UInt8], format: MissionFileFormat, fileName: String, replacingExisting: Bool
  ) throws -> MissionImportCount {
    do {
      let summary = try importMissions(
        bytes, format: format, fileName: fileName, replacingExisting: replacingExisting)
      return MissionImportCount(
        format: format, imported: summary.imported, replaced: summary.replaced)
    } catch let error as PostgresImportError where error.line > 0 {
      throw MissionFileError.invalidMissionFile(
        file: fileName, line: error.line, field: "id", value: error.id, reason: error.reason)
    }
  }

  /// Closes the idle connections (a later call would open a new one).
  package func close() throws {
    closeIdleConnections()
  }
}
