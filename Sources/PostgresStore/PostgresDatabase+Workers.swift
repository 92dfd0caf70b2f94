import MissionCatalog
import MissionTracking
import TextRules

/// Workers and their devices (DESIGN §7): the rows `accept` names and ingest looks up, and
/// the `workers` commands' store, with the SQLite store's answers (`WorkerRefusal`'s rules
/// and lines; workers and devices in code point order).
extension PostgresDatabase: WorkerStore {
  /// Every worker by id, with its devices; `local` is always there.
  package func workers() throws -> [Worker] {
    try workers(id: nil)
  }

  /// Worker `id` (in any Unicode normalisation form) with its devices, or nil.
  package func worker(_ id: String) throws -> Worker? {
    try workers(id: Identifier.normalized(id)).first
  }

  /// Creates or replaces a worker (its name and devices), in one transaction.
  /// - Throws: `WorkerRefusal.invalidWorker` (`WorkerRefusal.checked`), `.deviceTaken` for
  ///   a device registered to another worker (nothing is changed), `PostgresError`.
  package func putWorker(_ worker: Worker) throws {
    let worker = try WorkerRefusal.checked(worker)
    do {
      try write(worker)
    } catch let error as PostgresError
      where error.kind == .uniqueViolation && error.constraint == "worker_devices_pkey"
    {
      // Another node registered the device between the look-up and the insert: once more,
      // the look-up now names its worker.
      try write(worker)
    }
  }

  /// The upsert of a checked worker and its devices, refusing a device another worker has.
  private func write(_ worker: Worker) throws {
    try withConnection { connection in
      try connection.transaction {
        try connection.query(
          """
          INSERT INTO workers (id, name) VALUES (:id, :name)
          ON CONFLICT (id) DO UPDATE SET name = excluded.name
          """, ["id": worker.id, "name": worker.name])
        try connection.query("DELETE FROM worker_devices WHERE worker_id = :id", ["id": worker.id])
        for device in worker.devices {
          let owner = try connection.query(
            """
            SELECT worker_id FROM worker_devices WHERE protocol = :protocol AND device_id = :device
            """, ["protocol": device.ingestProtocol.rawValue, "device": device.deviceID])
          if owner.count == 1 {
            throw WorkerRefusal.deviceTaken(
              protocol: device.ingestProtocol, deviceID: device.deviceID,
              worker: owner.string(0, "worker_id") ?? "")
          }
          try connection.query(
            """
            INSERT INTO worker_devices (protocol, device_id, worker_id, secret)
            VALUES (:protocol, :device, :worker, :secret)
            """,
            [
              "protocol": device.ingestProtocol.rawValue, "device": device.deviceID,
              "worker": worker.id, "secret": device.secret,
            ])
        }
      }
    }
  }

  /// Removes worker `id` and its devices (in one transaction).
  /// - Returns: false when there is no such worker.
  /// - Throws: `WorkerRefusal.invalidWorker` for `local`, `.workerTracking` while the worker
  ///   has a tracked mission (nothing removed), `PostgresError`. The missions it accepted
  ///   keep its id (their history).
  package func removeWorker(_ id: String) throws -> Bool {
    let id = try WorkerRefusal.removable(id)
    return try withConnection { connection in
      try connection.transaction {
        let tracked = try connection.query(
          """
          SELECT id FROM missions WHERE worker_id = :worker AND state IN ('active', 'arrived')
          ORDER BY id COLLATE "C" LIMIT 1
          """, ["worker": id])
        if tracked.count == 1 {
          throw WorkerRefusal.workerTracking(worker: id, mission: tracked.string(0, "id") ?? "")
        }
        return try connection.query("DELETE FROM workers WHERE id = :id", ["id": id])
          .affectedRows > 0
      }
    }
  }

  /// The tracked (active or arrived) mission of every worker that has one: worker id →
  /// mission id.
  package func trackedMissionIDs() throws -> [String: String] {
    try withConnection { connection in
      let rows = try connection.query(
        """
        SELECT worker_id, id FROM missions
        WHERE state IN ('active', 'arrived') AND worker_id IS NOT NULL
        """)
      var tracked: [String: String] = [:]
      for row in 0..<rows.count {
        tracked[rows.string(row, "worker_id") ?? ""] = rows.string(row, "id") ?? ""
      }
      return tracked
    }
  }

  /// Worker `id` (in NFC), or every worker when nil, by id, each with its devices in
  /// protocol and device id order (code points, as SQLite orders them).
  private func workers(id: String?) throws -> [Worker] {
    try withConnection { connection in
      let rows = try connection.query(
        """
        SELECT w.id, w.name, d.protocol, d.device_id, d.secret
        FROM workers w LEFT JOIN worker_devices d ON d.worker_id = w.id
        WHERE CAST(:id AS text) IS NULL OR w.id = :id
        ORDER BY w.id COLLATE "C", d.protocol COLLATE "C", d.device_id COLLATE "C"
        """, ["id": id])
      var workers: [Worker] = []
      for row in 0..<rows.count {
        let id = rows.string(row, "id") ?? ""
        if workers.last?.id != id { workers.append(Worker(id: id, name: rows.string(row, "name"))) }
        if let name = rows.string(row, "protocol"),
          let ingestProtocol = WorkerDevice.IngestProtocol(rawValue: name),
          let device = rows.string(row, "device_id")
        {
          workers[workers.count - 1].devices.append(
            WorkerDevice(
              ingestProtocol: ingestProtocol, deviceID: device, secret: rows.string(row, "secret")))
        }
      }
      return workers
    }
  }
}
