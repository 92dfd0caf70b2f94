import Foundation
import MissionFiles
import MissionProximity
import MissionStore
import MissionTracking
import TextRules

extension MissionService {
  /// The CLI's nearby defaults.
  static let defaultRadiusMeters: Double = 1000
  static let defaultPageSize = 100
  static let maximumPageSize = 10_000

  /// `GET /v1/missions`: nearby when `lat` and `lon` are given, else a page by id.
  func missions(_ request: HTTPRequest) throws -> HTTPResponse {
    let lat = try request.double("lat", in: -90...90)
    let lon = try request.double("lon", in: -180...180)
    if lat != nil || lon != nil {
      guard let lat, let lon else { throw ServiceError.badRequest("give both lat and lon") }
      return try nearby(request, center: Coordinate(latitude: lat, longitude: lon))
    }
    for name in ["radius_m", "k"] where request.query[name] != nil {
      throw ServiceError.badRequest("\(name) goes with lat and lon")
    }
    let limit = try request.int("limit", in: 1...Self.maximumPageSize) ?? Self.defaultPageSize
    let state = try request.stateFilter() ?? nil
    let page = try database.missions(after: request.query["after"], limit: limit, inState: state)
    var body = JSONObjectWriter()
    body.addRaw(
      "missions", json: "[" + page.missions.map(\.jsonObject).joined(separator: ",") + "]")
    if let next = page.nextAfter {
      body.add("next_after", next)
    } else {
      body.addRaw("next_after", json: "null")
    }
    return .json(body.result)
  }

  /// Nearby, with the CLI's rules: default radius 1000 m (unless only `k` is given),
  /// default state open, the filter before the limit.
  private func nearby(_ request: HTTPRequest, center: Coordinate) throws -> HTTPResponse {
    var radius = try request.double("radius_m", in: 0...Double.greatestFiniteMagnitude)
    // Capped like a page of the list: an answer of every mission (`k` up to Int.max over half
    // a million) would be one body of tens of megabytes.
    let k = try request.int("k", in: 0...Self.maximumPageSize)
    if request.query["limit"] != nil || request.query["after"] != nil {
      throw ServiceError.badRequest("limit and after page the list; use k with lat and lon")
    }
    if radius == nil, k == nil { radius = Self.defaultRadiusMeters }
    let state: MissionState? = try request.stateFilter() ?? .open
    let filter: ((MissionState) -> Bool)? = state.map { wanted in { $0 == wanted } }
    // One buffer for the whole body (what `.json` would send: the object and a newline),
    // of each mission's JSON as the directory keeps it, with its distance added.
    var body: [UInt8] = []
    body.reserveCapacity(4096)
    body.append(contentsOf: #"{"missions":["#.utf8)
    var first = true
    try engine.directory.forEachMissionJSON(
      within: radius, of: center, limit: k, where: filter
    ) { match, json in
      if !first { body.append(UInt8(ascii: ",")) }
      first = false
      body.append(contentsOf: json)
      body.append(contentsOf: #","distance_m":"#.utf8)
      JSONObjectWriter.appendNumber(match.distanceMeters, to: &body)
      body.append(UInt8(ascii: "}"))
    }
    body.append(contentsOf: "]}\n".utf8)
    return HTTPResponse(status: 200, contentType: "application/json", body: body)
  }

  /// `POST /v1/missions[?replace=true]`: an import, all or nothing.
  func importMissions(_ request: HTTPRequest) throws -> HTTPResponse {
    let format: MissionFileFormat
    switch request.contentType {
    case "application/json": format = .json
    case "application/geo+json": format = .geojson
    case "text/csv": format = .csv
    default:
      throw ServiceError.unsupportedType(
        "send application/json, application/geo+json or text/csv, not "
          + "'\(Self.oneLine(request.contentType ?? "no Content-Type", limit: 100))'")
    }
    let replace = try request.flag("replace")
    let count = try writes.withLock {
      let count = try database.importMissionFile(
        request.body, format: format, fileName: "body", replacingExisting: replace)
      try syncEngine()
      return count
    }
    var body = JSONObjectWriter()
    body.add("imported", count.imported)
    body.add("new", count.imported - count.replaced)
    body.add("replaced", count.replaced)
    return .json(body.result, status: 201)
  }

  /// `GET /v1/missions/{id}`.
  func mission(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    guard let mission = try database.mission(id: id) else { throw Self.noMission(id) }
    let transitions = try database.transitions(ofMission: mission.id).map(\.jsonObject)
    let fence = try database.fenceStates(ofMission: mission.id)[mission.id]
    let fixes = try database.trackCount(ofMission: mission.id)
    var body = JSONObjectWriter()
    body.addRaw("mission", json: mission.jsonObject)
    body.addRaw("transitions", json: "[" + transitions.joined(separator: ",") + "]")
    body.add("fence", FenceState.position(fence, trackFixes: fixes))
    body.add("track_fixes", fixes)
    return .json(body.result)
  }

  /// `PUT /v1/missions/{id}`: one mission as a JSON object (its `id` may be left out),
  /// created or replaced; 409 while it is tracked.
  func replaceMission(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    guard request.contentType == "application/json" || request.contentType == nil else {
      throw ServiceError.unsupportedType("send the mission as application/json")
    }
    let body = try MissionPutBody(request.body)
    let normalized = MissionID.normalized(id)
    if let given = body.text("id"), MissionID.normalized(given) != normalized {
      throw ServiceError.invalid(
        "the body's id does not match the path's '\(Self.oneLine(id, limit: 100))'")
    }
    let existed = try writes.withLock {
      // A tracked mission is refused by the store's import (`missionTracked`, 409), which
      // owns that decision for every replace.
      let stored = try database.mission(id: normalized)
      var added = JSONObjectWriter()
      if body.object["id"] == nil { added.add("id", normalized) }
      // A replacement keeps the mission's state: a PUT that only edits a title must not
      // reopen a completed mission.
      if let stored, body.object["state"] == nil { added.add("state", stored.state.rawValue) }
      let document = body.importDocument(adding: added)
      if let stored { try Self.refuseStateChange(of: stored, to: document) }
      _ = try database.importMissionFile(
        document, format: .json, fileName: "body", replacingExisting: true)
      try syncEngine()
      return stored != nil
    }
    guard let stored = try database.mission(id: normalized) else { throw Self.noMission(id) }
    return .json("{\"mission\":\(stored.jsonObject)}", status: existed ? 200 : 201)
  }

  /// Refuses (409) a replacement whose `state` differs from the stored mission's: the
  /// lifecycle (`POST /v1/missions/{id}/ACTION`) is the only way to move a mission, with its
  /// transition recorded. The state is the import's reading of `document` (its own reader,
  /// so null or empty is open); a document the import refuses is left to it (422).
  private static func refuseStateChange(of stored: Mission, to document: [UInt8]) throws {
    guard
      let state = try? MissionFileReader.records(document, format: .json, file: "body").first?
        .mission.state,
      state != stored.state
    else { return }
    throw ServiceError.conflict(
      "mission \(oneLine(stored.id, limit: 100)) is \(stored.state.rawValue): a PUT does not "
        + "change its state to \(state.rawValue); use POST /v1/missions/{id}/ACTION")
  }

  /// `DELETE /v1/missions/{id}`: 409 while it is tracked (the store refuses it in the
  /// transaction that would delete it).
  func removeMission(_ request: HTTPRequest) throws -> HTTPResponse {
    let id = request.parameter("id")
    try writes.withLock {
      guard try database.removeMission(id: id) else { throw Self.noMission(id) }
      try syncEngine()
    }
    var body = JSONObjectWriter()
    body.add("removed", MissionID.normalized(id))
    return .json(body.result)
  }

  /// `POST /v1/missions/{id}/ACTION`: one transition. An accept may name its worker,
  /// `{"worker_id":"W"}` (DESIGN §7; `local` without one, 422 for an unknown worker).
  func perform(_ action: MissionAction, _ request: HTTPRequest) throws -> HTTPResponse {
    let engine = self.engine
    let normalized = MissionID.normalized(request.parameter("id"))
    let worker = action == .accept ? try Self.acceptingWorker(request.body) : nil
    // The state is read before another write can change it, so that it is this action's.
    let (transition, state) = try writes.withLock {
      let transition = try AsyncBridge.wait {
        try await engine.apply(action, on: normalized, worker: worker)
      }
      return (transition, engine.directory.mission(normalized)?.state ?? transition?.to ?? .open)
    }
    var body = JSONObjectWriter()
    if let transition {
      body.addRaw("event", json: transition.event.jsonLine)
    } else {
      body.addRaw("event", json: "null")
    }
    body.add("state", state.rawValue)
    return .json(body.result)
  }

  /// The worker an accept's optional body `{"worker_id":"W"}` names, nil for none.
  /// - Throws: 400 for a body that is not one JSON object, 422 for another member or a
  ///   `worker_id` that is not an id.
  private static func acceptingWorker(_ bytes: [UInt8]) throws(ServiceError) -> String? {
    let body = try CommandBody(bytes, known: ["worker_id"], optional: true)
    guard let text = try body.string("worker_id") else { return nil }
    return try CommandBody.identifier(text, of: "worker_id")
  }

  /// Makes the engine take in what the store now holds before the response goes out.
  private func syncEngine() throws {
    let engine = self.engine
    try AsyncBridge.wait { await engine.synchronize() }
  }

  static func noMission(_ id: String) -> ServiceError {
    .notFound("no mission with id '\(oneLine(id, limit: 200))'")
  }
}

extension HTTPRequest {
  /// A boolean argument: absent or `false`/`0` is false, `true`/`1`/empty is true.
  func flag(_ name: String) throws(ServiceError) -> Bool {
    guard let text = query[name] else { return false }
    switch text {
    case "true", "1", "": return true
    case "false", "0": return false
    default: throw .badRequest("\(name) must be true or false, got '\(Self.shown(text))'")
    }
  }
}
