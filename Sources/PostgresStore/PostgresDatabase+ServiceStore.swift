import Foundation
import MissionCatalog
import MissionFiles
import MissionTracking
import TextRules

/// `missiontrack serve` on PostgreSQL: the service's store contract with the SQLite store's
/// answers (pages by id in code point order, the same events, the same refusals), and a
/// tracking lease that works across machines (`PostgresLeaseHolder`).
extension PostgresDatabase: ServiceStore {
  /// One page of missions ordered by id (code points, as SQLite orders them): those after
  /// `afterID` (from the first when nil), only those in `state` when given, at most `limit`.
  /// - Returns: The page, and the id to ask after for the next one (nil on the last page).
  package func missions(after afterID: String?, limit: Int, inState state: MissionState?)
    throws -> (missions: [Mission], nextAfter: String?)
  {
    var page = try withConnection { connection in
      try Self.missions(
        connection.query(
          """
          SELECT \(Self.missionColumns) FROM missions
          WHERE id COLLATE "C" > :after AND (CAST(:state AS text) IS NULL OR state = :state)
          ORDER BY id COLLATE "C" LIMIT :limit
          """,
          [
            "after": afterID.map(MissionID.normalized) ?? "", "state": state?.rawValue,
            "limit": limit + 1,
          ]))
    }
    guard page.count > limit else { return (page, nil) }
    page.removeLast()
    return (page, page.last?.id)
  }

  /// Removes mission `id` with everything recorded for it, in one transaction; the change
  /// log records the removal.
  /// - Returns: Whether there was such a mission.
  /// - Throws: `MissionRefusal.trackedMissionRemoval` while it is tracked (decided under the
  ///   row's lock, so a start by another node a moment before is never undone).
  @discardableResult
  package func removeMission(id: String) throws -> Bool {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try connection.transaction {
        let stored = try connection.query(
          "SELECT state FROM missions WHERE id = :id FOR UPDATE", ["id": id])
        guard stored.count == 1 else { return false }
        let state = try Self.state(stored.string(0, "state"))
        if state.isTracking { throw MissionRefusal.trackedMissionRemoval(id: id, state: state) }
        for table in [
          "transitions", "track", "events", "fence_state", "ingest_rejections",
          "tracking_sessions",
        ] {
          try connection.query("DELETE FROM \(table) WHERE mission_id = :id", ["id": id])
        }
        return try connection.query("DELETE FROM missions WHERE id = :id", ["id": id])
          .affectedRows > 0
      }
    }
  }

  /// How many delivered fixes mission `id`'s track holds.
  package func trackCount(ofMission id: String) throws -> Int {
    try withConnection { connection in
      Int(
        try connection.query(
          "SELECT count(*) AS fixes FROM track WHERE mission_id = :id",
          ["id": MissionID.normalized(id)]
        ).int64(0, "fixes") ?? 0)
    }
  }

  /// The events after `afterSequence`, in order, at most `limit`. Every event is committed
  /// when its call returns, and events are numbered in commit order (see
  /// `insert(_:_:)`), so a reader that follows the log by number skips none.
  package func committedEvents(afterSequence: Int64, limit: Int) throws -> [StoredEvent] {
    try events(afterSequence: afterSequence, limit: limit)
  }

  /// The number of the newest event (0 when there is none).
  package func lastEventSequence() throws -> Int64 {
    try withConnection { connection in
      try connection.query("SELECT coalesce(max(seq), 0) AS seq FROM events").int64(0, "seq")
        ?? 0
    }
  }

  /// The number of the newest event: every event is committed when its call returns.
  package func lastCommittedSequence() throws -> Int64 {
    try lastEventSequence()
  }

  /// A number that every change to any worker's devices moves, on any node
  /// (`device_registry`, moved by a trigger on `worker_devices`).
  package func deviceRegistryVersion() throws -> Int64 {
    try withConnection { connection in
      try connection.query("SELECT version FROM device_registry").firstRow?.int64("version")
        ?? 0
    }
  }

  /// The worker device `deviceID` of `ingestProtocol` is registered to, with the device
  /// (its secret), or nil when none is.
  package func device(_ ingestProtocol: WorkerDevice.IngestProtocol, id deviceID: String) throws
    -> (worker: String, device: WorkerDevice)?
  {
    let deviceID = Identifier.normalized(deviceID)
    return try withConnection { connection in
      guard
        let row = try connection.query(
          """
          SELECT worker_id, secret FROM worker_devices
          WHERE protocol = :protocol AND device_id = :device
          """, ["protocol": ingestProtocol.rawValue, "device": deviceID]
        ).firstRow
      else { return nil }
      return (
        row.string("worker_id") ?? "",
        WorkerDevice(
          ingestProtocol: ingestProtocol, deviceID: deviceID, secret: row.string("secret"))
      )
    }
  }

  /// Takes the right to track `worker` across every node of the database: a session
  /// advisory lock on a connection kept for leases (`PostgresLeaseHolder`), which the server
  /// releases when this process ends or its connection drops.
  /// - Throws: `MissionRefusal.trackingLeaseHeld` naming the holding process (its
  ///   `application_name`: pid, command and host) while another holds it;
  ///   `WorkerRefusal.invalidWorker` for an id that is not one; `PostgresError`.
  package func claimTracking(holder: String, worker: String) throws -> PostgresWorkerLease {
    try claim(worker: worker, holder: holder, shared: false)
  }

  /// Takes the right to decide `worker`'s pushed positions beside the other nodes: the same
  /// advisory lock in shared mode, so every `serve` node may hold it at once while a
  /// `replay` or `track` of the worker (which takes it exclusively) may not. The nodes'
  /// decisions serialize on the session row instead (`record`).
  /// - Throws: As `claimTracking`.
  package func claimSharedTracking(holder: String, worker: String) throws
    -> PostgresWorkerLease
  {
    try claim(worker: worker, holder: holder, shared: true)
  }

  private func claim(worker: String, holder: String, shared: Bool) throws
    -> PostgresWorkerLease
  {
    if let problem = Identifier.problem(with: worker) {
      throw WorkerRefusal.invalidWorker(id: worker, reason: problem)
    }
    return try leases.claim(worker: Identifier.normalized(worker), holder: holder, shared: shared)
  }

  /// Checks that the server takes a write now, without waiting for one that went away: a
  /// connection answers and the database is not read-only (a hot standby).
  package func checkWritable() throws {
    try withConnection(reconnecting: false) { connection in
      guard
        try connection.query("SELECT current_setting('transaction_read_only') AS ro")
          .string(0, "ro") == "off"
      else {
        throw PostgresError(kind: .other, message: "the server is read-only (a standby)")
      }
    }
  }
}
