import MissionTracking

/// Workers and their devices (DESIGN §7): the rows `accept` names and ingest looks up.
extension PostgresDatabase {
  /// Every worker by id, with its devices; `local` is always there.
  package func workers() async throws -> [Worker] {
    try await withConnection { connection in
      let rows = try connection.query(
        """
        SELECT w.id, w.name, d.protocol, d.device_id, d.secret
        FROM workers w LEFT JOIN worker_devices d ON d.worker_id = w.id
        ORDER BY w.id, d.protocol, d.device_id
        """)
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

  /// Creates or replaces a worker (its name and devices), in one transaction.
  /// - Throws: `PostgresError` (a device registered to another worker is a unique violation
  ///   of `worker_devices_pkey`).
  package func putWorker(_ worker: Worker) async throws {
    try await withConnection { connection in
      try connection.transaction {
        try connection.query(
          """
          INSERT INTO workers (id, name) VALUES (:id, :name)
          ON CONFLICT (id) DO UPDATE SET name = excluded.name
          """, ["id": worker.id, "name": worker.name])
        try connection.query("DELETE FROM worker_devices WHERE worker_id = :id", ["id": worker.id])
        for device in worker.devices {
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
}
