import Foundation
import MissionProximity
import MissionStore
import MissionTracking
import TextRules

extension MissionService {
  /// `POST /v1/watches` `{"lat","lon","radius_m","worker_id"?,"state"?}`: a standing nearby
  /// query (default state `open`; `any` for every state); 201 `{"watch":{…}}` with its new id.
  /// A new watch starts with the result set it has now: only missions that enter it later
  /// give a `mission_nearby` event (the engine decides them).
  func addWatch(_ request: HTTPRequest) throws -> HTTPResponse {
    guard request.contentType == "application/json" || request.contentType == nil else {
      throw ServiceError.unsupportedType("send the watch as application/json")
    }
    let body = try CommandBody(
      request.body, known: ["lat", "lon", "radius_m", "worker_id", "state"])
    guard let lat = try body.number("lat", in: -90...90),
      let lon = try body.number("lon", in: -180...180)
    else { throw ServiceError.invalid("a watch needs lat and lon") }
    guard let radius = try body.number("radius_m", in: 0...Double.greatestFiniteMagnitude) else {
      throw ServiceError.invalid("a watch needs radius_m")
    }
    var workerID: String?
    if let text = try body.string("worker_id") {
      let id = try CommandBody.identifier(text, of: "worker_id")
      guard try database.worker(id) != nil else {
        throw ServiceError.invalid("unknown worker '\(CommandBody.shown(id))'")
      }
      workerID = id
    }
    var state: MissionState? = .open
    if let text = try body.string("state") {
      if text == "any" {
        state = nil
      } else {
        guard let given = MissionState(rawValue: text) else {
          let names = MissionState.allCases.map(\.rawValue).joined(separator: ", ")
          throw ServiceError.invalid(
            "state must be one of \(names) or any, got '\(CommandBody.shown(text))'")
        }
        state = given
      }
    }
    let watch = Watch(
      id: UUID().uuidString.lowercased(),
      coordinate: try Coordinate(latitude: lat, longitude: lon), radiusMeters: radius,
      workerID: workerID, state: state)
    let engine = self.engine
    try writes.withLock { try AsyncBridge.wait { try await engine.addWatch(watch) } }
    return .json("{\"watch\":" + Self.watchJSON(watch) + "}", status: 201)
  }

  /// `GET /v1/watches`: every watch, by id.
  func watches(_ request: HTTPRequest) throws -> HTTPResponse {
    let engine = self.engine
    let all = try AsyncBridge.wait { await engine.watches() }.sorted { $0.id < $1.id }
    return .json("{\"watches\":[" + all.map(Self.watchJSON).joined(separator: ",") + "]}")
  }

  /// `GET /v1/watches/{id}`.
  func watch(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    let engine = self.engine
    guard let watch = try AsyncBridge.wait({ await engine.watches() }).first(where: { $0.id == id })
    else { throw Self.noWatch(id) }
    return .json("{\"watch\":" + Self.watchJSON(watch) + "}")
  }

  /// `DELETE /v1/watches/{id}`.
  func removeWatch(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    let engine = self.engine
    let removed = try writes.withLock {
      try AsyncBridge.wait { try await engine.removeWatch(id: id) }
    }
    guard removed else { throw Self.noWatch(id) }
    var body = JSONObjectWriter()
    body.add("removed", id)
    return .json(body.result)
  }

  /// A watch as the API shows it: `id`, `lat`, `lon`, `radius_m`, `worker_id` (or null) and
  /// `state` (`any` for every state).
  static func watchJSON(_ watch: Watch) -> String {
    var json = JSONObjectWriter()
    json.add("id", watch.id)
    json.add("lat", watch.coordinate.latitude)
    json.add("lon", watch.coordinate.longitude)
    json.add("radius_m", watch.radiusMeters)
    if let worker = watch.workerID {
      json.add("worker_id", worker)
    } else {
      json.addRaw("worker_id", json: "null")
    }
    json.add("state", watch.state?.rawValue ?? "any")
    return json.result
  }

  static func noWatch(_ id: String) -> ServiceError {
    .notFound("no watch with id '\(oneLine(id, limit: 200))'")
  }
}
