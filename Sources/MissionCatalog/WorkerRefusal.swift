import MissionTracking
import TextRules

/// A worker write that a store refuses, with the one line that says why: the rules of
/// worker writes that do not depend on the store (`checked(_:)`, `removable(_:)`) and their
/// text, in one place for SQLite and PostgreSQL.
package enum WorkerRefusal: Error, Sendable, Equatable, CustomStringConvertible {
  /// Worker `id` breaks `reason` (an id against `Identifier`, a device listed twice, the
  /// removal of `local`).
  case invalidWorker(id: String, reason: String)
  /// The device is registered to another worker, `worker`.
  case deviceTaken(protocol: WorkerDevice.IngestProtocol, deviceID: String, worker: String)
  /// Worker `worker` tracks mission `mission` (active or arrived), so it cannot be removed.
  case workerTracking(worker: String, mission: String)

  /// One line naming the worker (and the device or mission).
  package var description: String {
    switch self {
    case .invalidWorker(let id, let reason):
      "invalid worker '\(oneLine(id, limit: 64))': \(reason)"
    case .deviceTaken(let kind, let deviceID, let worker):
      "device \(kind.rawValue):\(oneLine(deviceID)) is registered to worker "
        + "'\(oneLine(worker))'"
    case .workerTracking(let worker, let mission):
      "worker '\(oneLine(worker))' tracks mission '\(oneLine(mission))': submit or cancel it "
        + "before you remove the worker"
    }
  }

  /// `worker` as a store keeps it: its id and device ids in NFC.
  /// - Throws: `.invalidWorker` for an id or a device id against `Identifier`, or a device
  ///   listed twice.
  package static func checked(_ worker: Worker) throws(WorkerRefusal) -> Worker {
    if let problem = Identifier.problem(with: worker.id) {
      throw .invalidWorker(id: worker.id, reason: problem)
    }
    let id = Identifier.normalized(worker.id)
    var seen: Set<String> = []
    let devices = try worker.devices.map { device throws(WorkerRefusal) in
      if let problem = Identifier.problem(with: device.deviceID) {
        throw .invalidWorker(
          id: id, reason: "device id '\(oneLine(device.deviceID, limit: 64))' \(problem)")
      }
      let deviceID = Identifier.normalized(device.deviceID)
      let key = device.ingestProtocol.rawValue + ":" + deviceID
      guard seen.insert(key).inserted else {
        throw .invalidWorker(id: id, reason: "device \(oneLine(key, limit: 80)) is listed twice")
      }
      return WorkerDevice(
        ingestProtocol: device.ingestProtocol, deviceID: deviceID, secret: device.secret)
    }
    return Worker(id: id, name: worker.name, devices: devices)
  }

  /// `id` in NFC when it names a worker that may be removed.
  /// - Throws: `.invalidWorker` for `local`, the rig's own receiver, which always exists.
  package static func removable(_ id: String) throws(WorkerRefusal) -> String {
    let id = Identifier.normalized(id)
    guard id != Worker.localID else {
      throw .invalidWorker(
        id: id, reason: "the rig's own receiver always exists and cannot be removed")
    }
    return id
  }
}
