import Foundation
import MissionCatalog
import MissionTracking
import TextRules

/// Workers and their devices (DESIGN §7, schema version 7). Ids follow `Identifier` and are
/// stored in NFC, so an id given in NFD names the same worker.
extension MissionDatabase {
  /// `id` in NFC when it is a valid worker id.
  /// - Throws: `StoreError.invalidWorker` naming the id and the rule it breaks.
  static func checkedWorkerID(_ id: String) throws -> String {
    if let problem = Identifier.problem(with: id) {
      throw StoreError.invalidWorker(id: id, reason: problem)
    }
    return Identifier.normalized(id)
  }

  /// Every worker with its devices, by id; `local` is always among them.
  package func workers() throws -> [Worker] {
    try withCommittedReader { connection in
      let select = try connection.cached("SELECT id, name FROM workers ORDER BY id")
      defer { select.reset() }
      var workers: [Worker] = []
      while try select.step() {
        workers.append(Worker(id: try select.string("id") ?? "", name: try select.string("name")))
      }
      let devices = try devicesLocked(ofWorker: nil, connection)
      return workers.map { worker in
        var worker = worker
        worker.devices = devices[worker.id] ?? []
        return worker
      }
    }
  }

  /// Worker `id` (in any normalization form) with its devices, or nil when there is none.
  package func worker(_ id: String) throws -> Worker? {
    let id = Identifier.normalized(id)
    return try withCommittedReader { connection in
      let select = try connection.cached("SELECT name FROM workers WHERE id = :id")
      defer { select.reset() }
      try select.bind(["id": id])
      guard try select.step() else { return nil }
      return Worker(
        id: id, name: try select.string("name"),
        devices: try devicesLocked(ofWorker: id, connection)[id] ?? [])
    }
  }

  /// Creates worker `worker.id` or replaces its name and devices, in one transaction.
  /// - Throws: `StoreError.invalidWorker` for an id (or a device id) against `Identifier`;
  ///   `StoreError.deviceTaken` when a device is registered to another worker (nothing is
  ///   changed); another `StoreError`.
  package func putWorker(_ worker: Worker) throws {
    let worker = try Self.storeError(WorkerRefusal.checked, worker)
    let id = worker.id
    try withConnection { connection in
      try connection.transaction {
        let upsert = try connection.cached(
          """
          INSERT INTO workers (id, name) VALUES (:id, :name)
          ON CONFLICT (id) DO UPDATE SET name = excluded.name
          """)
        try upsert.bind(["id": id, "name": worker.name])
        try upsert.run()
        let clear = try connection.cached("DELETE FROM worker_devices WHERE worker_id = :id")
        try clear.bind(["id": id])
        try clear.run()
        for device in worker.devices {
          let deviceID = device.deviceID
          if let owner = try deviceOwnerLocked(device.ingestProtocol, deviceID, connection) {
            throw StoreError.deviceTaken(
              protocol: device.ingestProtocol, deviceID: deviceID, worker: owner)
          }
          let insert = try connection.cached(
            """
            INSERT INTO worker_devices (protocol, device_id, worker_id, secret)
            VALUES (:protocol, :device, :worker, :secret)
            """)
          try insert.bind([
            "protocol": device.ingestProtocol.rawValue, "device": deviceID, "worker": id,
            "secret": device.secret,
          ])
          try insert.run()
        }
      }
    }
  }

  /// Removes worker `id` and its devices; the missions it accepted keep its id (their
  /// history).
  /// - Returns: false when there is no such worker.
  /// - Throws: `StoreError.invalidWorker` for `local`, which always exists;
  ///   `StoreError.workerTracking` while the worker has a tracked mission (nothing removed).
  package func removeWorker(_ id: String) throws -> Bool {
    let id = try Self.storeError(WorkerRefusal.removable, id)
    return try withConnection { connection in
      try commitPendingLocked(connection)
      return try connection.transaction {
        let tracked = try connection.cached(
          """
          SELECT id FROM missions
          WHERE worker_id = :worker AND state IN ('active', 'arrived') LIMIT 1
          """)
        defer { tracked.reset() }
        try tracked.bind(["worker": id])
        if try tracked.step() {
          throw StoreError.workerTracking(worker: id, mission: try tracked.string("id") ?? "")
        }
        let delete = try connection.cached("DELETE FROM workers WHERE id = :id")
        try delete.bind(["id": id])
        try delete.run()
        return connection.changes > 0
      }
    }
  }

  /// The worker device `deviceID` of `ingestProtocol` is registered to, with the device
  /// (its secret), or nil when none is.
  package func device(_ ingestProtocol: WorkerDevice.IngestProtocol, id deviceID: String) throws
    -> (worker: String, device: WorkerDevice)?
  {
    let deviceID = Identifier.normalized(deviceID)
    return try withCommittedReader { connection in
      let select = try connection.cached(
        """
        SELECT worker_id, secret FROM worker_devices
        WHERE protocol = :protocol AND device_id = :device
        """)
      defer { select.reset() }
      try select.bind(["protocol": ingestProtocol.rawValue, "device": deviceID])
      guard try select.step() else { return nil }
      return (
        try select.string("worker_id") ?? "",
        WorkerDevice(
          ingestProtocol: ingestProtocol, deviceID: deviceID, secret: try select.string("secret"))
      )
    }
  }

  /// A number that every change to any worker's devices moves, from any process
  /// (`device_registry`, moved by triggers on `worker_devices`).
  package func deviceRegistryVersion() throws -> Int64 {
    try withCommittedReader { connection in
      try connection.integer("SELECT version FROM device_registry") ?? 0
    }
  }

  /// The tracked (active or arrived) mission of every worker that has one: worker id →
  /// mission id (pending events commit first).
  /// - Complexity: O(t) for t tracked missions (the `missions_one_tracked_per_worker` index).
  package func trackedMissionIDs() throws -> [String: String] {
    try withConnection { connection in
      try commitPendingLocked(connection)
      let select = try connection.cached(
        """
        SELECT worker_id, id FROM missions
        WHERE state IN ('active', 'arrived') AND worker_id IS NOT NULL
        """)
      defer { select.reset() }
      var tracked: [String: String] = [:]
      while try select.step() {
        tracked[try select.string("worker_id") ?? ""] = try select.string("id") ?? ""
      }
      return tracked
    }
  }

  /// Runs one of `WorkerRefusal`'s rules on `value`, its refusal as the `StoreError` of the
  /// same case (which the service maps to its status).
  private static func storeError<Value, Result>(
    _ rule: (Value) throws(WorkerRefusal) -> Result, _ value: Value
  ) throws(StoreError) -> Result {
    do {
      return try rule(value)
    } catch {
      switch error {
      case .invalidWorker(let id, let reason): throw .invalidWorker(id: id, reason: reason)
      case .deviceTaken(let kind, let deviceID, let worker):
        throw .deviceTaken(protocol: kind, deviceID: deviceID, worker: worker)
      case .workerTracking(let worker, let mission):
        throw .workerTracking(worker: worker, mission: mission)
      }
    }
  }

  /// Whether worker `id` (in NFC) is stored.
  func workerExistsLocked(_ id: String, _ connection: SQLiteConnection) throws -> Bool {
    let select = try connection.cached("SELECT 1 FROM workers WHERE id = :id")
    defer { select.reset() }
    try select.bind(["id": id])
    return try select.step()
  }

  /// The worker a device is registered to.
  private func deviceOwnerLocked(
    _ ingestProtocol: WorkerDevice.IngestProtocol, _ deviceID: String,
    _ connection: SQLiteConnection
  ) throws -> String? {
    let select = try connection.cached(
      "SELECT worker_id FROM worker_devices WHERE protocol = :protocol AND device_id = :device")
    defer { select.reset() }
    try select.bind(["protocol": ingestProtocol.rawValue, "device": deviceID])
    return try select.step() ? try select.string("worker_id") : nil
  }

  /// The devices of worker `id` (of every worker when nil), by worker, each list in
  /// protocol and id order.
  private func devicesLocked(ofWorker id: String?, _ connection: SQLiteConnection) throws
    -> [String: [WorkerDevice]]
  {
    let select =
      if let id {
        try {
          let s = try connection.cached(
            """
            SELECT worker_id, protocol, device_id, secret FROM worker_devices
            WHERE worker_id = :id ORDER BY protocol, device_id
            """)
          try s.bind(["id": id])
          return s
        }()
      } else {
        try connection.cached(
          """
          SELECT worker_id, protocol, device_id, secret FROM worker_devices
          ORDER BY worker_id, protocol, device_id
          """)
      }
    defer { select.reset() }
    var devices: [String: [WorkerDevice]] = [:]
    while try select.step() {
      // Rows are written only with known protocols; a newer schema is refused on open.
      guard let kind = WorkerDevice.IngestProtocol(rawValue: try select.string("protocol") ?? "")
      else { continue }
      devices[try select.string("worker_id") ?? "", default: []].append(
        WorkerDevice(
          ingestProtocol: kind, deviceID: try select.string("device_id") ?? "",
          secret: try select.string("secret")))
    }
    return devices
  }
}

/// The `workers` commands' store contract, met by the methods above.
extension MissionDatabase: WorkerStore {}
