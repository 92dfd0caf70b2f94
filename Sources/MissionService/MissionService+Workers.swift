import Foundation
import MissionProximity
import MissionStore
import MissionTracking
import TextRules

extension MissionService {
  /// What is known of one worker now: its tracked mission and source status (the engine's)
  /// and that mission's last delivered fix and fence states (the store's record, so also
  /// after its source ended, and for a worker tracked by another process on the database).
  /// DESIGN §7: `last_fix` only while it has a tracked mission.
  struct WorkerView: Sendable {
    var trackedMission: String?
    var lastFix: Fix?
    var sourceStatus: SourceStatus.Kind?
    var fenceStates: [String: FenceState]?
  }

  /// The view of each of `ids`, read in one visit to the engine's actor.
  func workerViews(_ ids: [String]) throws -> [String: WorkerView] {
    let engine = self.engine
    let live = try AsyncBridge.wait {
      var live: [String: (String?, SourceStatus.Kind?)] = [:]
      for id in ids {
        live[id] = (
          await engine.trackedMissionID(ofWorker: id), await engine.sourceStatus(ofWorker: id)
        )
      }
      return live
    }
    var views: [String: WorkerView] = [:]
    for id in ids {
      let (tracked, status) = live[id] ?? (nil, nil)
      let resume = try tracked.flatMap { try database.resumePoint(ofMission: $0) }
      views[id] = WorkerView(
        trackedMission: tracked, lastFix: resume?.lastDelivered, sourceStatus: status,
        fenceStates: resume?.fenceStates)
    }
    return views
  }

  /// `GET /v1/workers`: every worker by id.
  func workers(_ request: HTTPRequest) throws -> HTTPResponse {
    let workers = try database.workers()
    let views = try workerViews(workers.map(\.id))
    let objects = workers.map { workerJSON($0, view: views[$0.id] ?? WorkerView()).result }
    return .json("{\"workers\":[" + objects.joined(separator: ",") + "]}")
  }

  /// `GET /v1/workers/{id}`: the worker, and its tracked mission's fence state and distance.
  func worker(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = try CommandBody.identifier(request.parameter("id"), of: "worker id")
    guard let worker = try database.worker(id) else { throw Self.noWorker(id) }
    let view = try workerViews([worker.id])[worker.id] ?? WorkerView()
    var body = workerJSON(worker, view: view)
    let mission = view.trackedMission.flatMap { engine.directory.mission($0) }
    if let mission {
      body.addRaw("mission", json: mission.jsonObject)
      let fence = view.fenceStates?[mission.id]
      body.add("fence", FenceState.position(fence, trackFixes: view.lastFix == nil ? 0 : 1))
      if let fix = view.lastFix {
        body.add("distance_m", fix.coordinate.distance(to: mission.coordinate))
      } else {
        body.addRaw("distance_m", json: "null")
      }
    } else {
      body.addRaw("mission", json: "null")
      body.addRaw("fence", json: "null")
      body.addRaw("distance_m", json: "null")
    }
    return .json("{\"worker\":" + body.result + "}")
  }

  /// `PUT /v1/workers/{id}`: creates or replaces the worker's name and devices; 201 when new.
  func putWorker(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = try CommandBody.identifier(request.parameter("id"), of: "worker id")
    guard request.contentType == "application/json" || request.contentType == nil else {
      throw ServiceError.unsupportedType("send the worker as application/json")
    }
    let worker = try Self.worker(id: id, body: request.body)
    let existed = try writes.withLock {
      let existed = try database.worker(id) != nil
      try database.putWorker(worker)
      deviceRegistrations.forget()
      return existed
    }
    guard let stored = try database.worker(id) else { throw Self.noWorker(id) }
    let view = try workerViews([stored.id])[stored.id] ?? WorkerView()
    return .json(
      "{\"worker\":" + workerJSON(stored, view: view).result + "}", status: existed ? 200 : 201)
  }

  /// `DELETE /v1/workers/{id}`: 409 while it has a tracked mission (the store decides, in
  /// the transaction that would delete it); `local` cannot be removed.
  func removeWorker(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = try CommandBody.identifier(request.parameter("id"), of: "worker id")
    try writes.withLock {
      guard try database.removeWorker(id) else { throw Self.noWorker(id) }
      deviceRegistrations.forget()
    }
    var body = JSONObjectWriter()
    body.add("removed", id)
    return .json(body.result)
  }

  /// The worker of a `PUT /v1/workers/{id}` body:
  /// `{"name"?,"devices"?:[{"protocol","device_id","secret"?}]}`.
  /// - Throws: 400 for a body that is not one JSON object, 422 for a value of the wrong kind.
  static func worker(id: String, body bytes: [UInt8]) throws(ServiceError) -> Worker {
    let body = try CommandBody(bytes, known: ["id", "name", "devices"], optional: true)
    if let given = try body.string("id"), Identifier.normalized(given) != id {
      throw .invalid("the body's id does not match the path's '\(CommandBody.shown(id))'")
    }
    let name = try body.string("name")
    if let name, name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    {
      throw .invalid("name must not contain control characters")
    }
    var devices: [WorkerDevice] = []
    for element in try body.array("devices") ?? [] {
      let device = try CommandBody.object(
        element, of: "devices", known: ["protocol", "device_id", "secret"])
      let names = WorkerDevice.IngestProtocol.allCases.map(\.rawValue)
      guard let text = try device.string("protocol"),
        let kind = WorkerDevice.IngestProtocol(rawValue: text)
      else {
        throw .invalid("each device needs a protocol: one of \(names.joined(separator: ", "))")
      }
      guard let deviceID = try device.string("device_id") else {
        throw .invalid("each device needs a device_id")
      }
      devices.append(
        WorkerDevice(
          ingestProtocol: kind,
          deviceID: try CommandBody.identifier(deviceID, of: "device_id"),
          secret: try device.string("secret")))
    }
    return Worker(id: id, name: name, devices: devices)
  }

  /// A worker as `/v1/workers` shows it: `id`, `name`, `tracked_mission`, `last_fix`,
  /// `source` and `devices` (protocol and id; a secret is never shown).
  func workerJSON(_ worker: Worker, view: WorkerView) -> JSONObjectWriter {
    var json = JSONObjectWriter()
    json.add("id", worker.id)
    if let name = worker.name { json.add("name", name) } else { json.addRaw("name", json: "null") }
    if let tracked = view.trackedMission {
      json.add("tracked_mission", tracked)
    } else {
      json.addRaw("tracked_mission", json: "null")
    }
    if let fix = view.lastFix {
      var last = JSONObjectWriter()
      last.add("time", UTCTime.format(fix.time))
      last.add("lat", fix.coordinate.latitude)
      last.add("lon", fix.coordinate.longitude)
      last.addIfPresent("accuracy_m", fix.horizontalAccuracyMeters)
      json.addRaw("last_fix", json: last.result)
    } else {
      json.addRaw("last_fix", json: "null")
    }
    if worker.id == configuration.sourceWorker {
      // The source this process has for the worker (`serve --worker W --gpsd …`).
      var source = JSONObjectWriter()
      source.add("kind", configuration.sourceKind)
      source.add(
        "status",
        view.trackedMission == nil ? "idle" : view.sourceStatus?.rawValue ?? "connecting")
      json.addRaw("source", json: source.result)
    } else {
      json.addRaw("source", json: "null")
    }
    json.addRaw("devices", json: WorkerDevice.publicJSONArray(worker.devices))
    return json
  }

  static func noWorker(_ id: String) -> ServiceError {
    .notFound("no worker with id '\(oneLine(id, limit: 200))'")
  }
}
