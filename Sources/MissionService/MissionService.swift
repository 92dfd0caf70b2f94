import Foundation
import MissionProximity
import MissionStore
import MissionTracking

/// `missiontrack serve`: the engine of one database behind an HTTP API (DESIGN.md §5).
///
/// The service adds no semantics of its own: lifecycle actions go to the engine (which
/// decides them and opens or closes the source), nearby queries read the engine's
/// directory, imports and exports use the store's own calls, and live events are the
/// store's event log as Server-Sent Events (`EventHub`). Requests run on the HTTP server's
/// threads; a route that needs the engine's actor waits for it there (`AsyncBridge`).
package final class MissionService: @unchecked Sendable {
  let database: MissionDatabase
  let engine: MissionEngine
  let configuration: ServiceConfiguration
  let monitor = ServiceMonitor()
  let hub: EventHub
  /// The server threads' polls between back-to-back requests (counted in `/metrics`).
  let idlePoll: IdlePoll
  private var server: HTTPServer?
  private var tasks: [Task<Void, Never>] = []
  private let lock = NSLock()
  private var stopping = false
  /// Held by the API's writes (imports, replace, remove, lifecycle actions), one at a time,
  /// so that "is it tracked?" and the write that depends on the answer see one state: a
  /// PUT racing a start could otherwise replace a mission the engine just began tracking.
  let writes = NSLock()

  /// A service over `engine`, which must be opened over `database`.
  package init(
    database: MissionDatabase, engine: MissionEngine, configuration: ServiceConfiguration
  ) {
    self.database = database
    self.engine = engine
    self.configuration = configuration
    hub = EventHub(database: database)
    idlePoll = IdlePoll(window: configuration.limits.idlePoll)
  }

  /// Starts listening and forwarding the engine's events; returns the base URL.
  /// - Throws: `ServiceError.listen` when the address cannot be bound.
  package func start() throws -> String {
    // Nearby answers copy each mission's JSON as the directory keeps it: encoded now, not
    // in the first request.
    engine.directory.keepJSON()
    var headers: [(String, String)] = [
      ("Content-Security-Policy", "default-src 'self'"),
      ("X-Content-Type-Options", "nosniff"),
      ("Cache-Control", "no-store"),
    ]
    if let origin = configuration.corsOrigin {
      headers.append(("Access-Control-Allow-Origin", origin))
      headers.append(("Vary", "Origin"))
    }
    let server = try HTTPServer(
      host: configuration.host, port: configuration.port, limits: configuration.limits,
      commonHeaders: headers, idlePoll: idlePoll,
      admission: { [weak self] request in self?.refusalBeforeBody(request) },
      answered: { [monitor] status in monitor.noteRequest(status: status) },
      handler: { [weak self] request in
        guard let self else {
          return ServiceError.unavailable("the service is shutting down").response
        }
        return self.respond(to: request)
      })
    self.server = server
    let engine = self.engine
    let monitor = self.monitor
    let hub = self.hub
    tasks.append(
      Task {
        for await event in engine.events {
          monitor.note(event)
          hub.wake()
        }
      })
    tasks.append(Task { await hub.run() })
    let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
    return "http://\(host):\(server.port)"
  }

  /// Whether `stop()` has begun.
  var isStopping: Bool { lock.withLock { stopping } }

  /// Refuses new requests (503), ends every event stream, stops listening and stops the
  /// engine (the held-back epoch is recorded, the source closed).
  package func stop(reason: String?) async {
    lock.withLock { stopping = true }
    hub.close()
    server?.stop()
    server = nil
    await engine.shutdown(reason: reason)
    for task in tasks { task.cancel() }
    for task in tasks { await task.value }
    tasks = []
  }

  // MARK: - Requests

  private func respond(to request: HTTPRequest) -> HTTPResponse {
    let response: HTTPResponse
    do {
      response = try route(request)
    } catch {
      response = Self.serviceError(error).response
    }
    monitor.noteRequest(status: response.status)
    return response
  }

  /// The 401 or 403 (or 503) for a request whose body is still to come, so that a client
  /// without the token is refused before the server reads, and holds, up to 16 MiB of it.
  private func refusalBeforeBody(_ request: HTTPRequest) -> HTTPResponse? {
    do {
      if isStopping { throw ServiceError.unavailable("the service is shutting down") }
      try refuseMalformedHeaders(request)
      if request.path != "/healthz" {
        try refuseForeignPages(request)
        try authorize(request)
      }
      return nil
    } catch {
      let response = Self.serviceError(error).response
      monitor.noteRequest(status: response.status)
      return response
    }
  }

  private func route(_ request: HTTPRequest) throws -> HTTPResponse {
    if isStopping { throw ServiceError.unavailable("the service is shutting down") }
    let path = request.path
    try refuseMalformedHeaders(request)
    // A browser's CORS preflight never carries credentials, so it is answered before the
    // token check; it reveals nothing but the allowed methods and headers.
    if request.method == "OPTIONS", configuration.corsOrigin != nil {
      return HTTPResponse(
        status: 204, contentType: "text/plain", body: [],
        headers: [
          ("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS"),
          ("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID"),
        ])
    }
    if path != "/healthz" {
      try refuseForeignPages(request)
      if let login = try signIn(request) { return login }
      try authorize(request)
    }
    let parts = request.segments
    switch (parts.count, parts.dropFirst().first ?? "") {
    case (2, ""):
      try allow(request, ["GET"])
      return HTTPResponse(status: 200, contentType: "text/html; charset=utf-8", text: MapPage.html)
    case (2, "map.js"):
      try allow(request, ["GET"])
      return HTTPResponse(
        status: 200, contentType: "text/javascript; charset=utf-8", text: MapPage.script)
    case (2, "map.css"):
      try allow(request, ["GET"])
      return HTTPResponse(status: 200, contentType: "text/css; charset=utf-8", text: MapPage.style)
    case (2, "favicon.ico"):
      // Browsers ask for it; there is none, and a 404 would only fill their logs.
      try allow(request, ["GET"])
      return HTTPResponse(status: 204, contentType: "image/x-icon", body: [])
    case (2, "healthz"):
      try allow(request, ["GET"])
      return health()
    case (2, "metrics"):
      try allow(request, ["GET"])
      return try metrics()
    default: break
    }
    guard parts.count >= 3, parts[1] == "v1" else {
      throw ServiceError.notFound("no such resource: \(Self.oneLine(path, limit: 200))")
    }
    switch (parts.count, parts[2]) {
    case (3, "status"):
      try allow(request, ["GET"])
      return try status()
    case (3, "events"):
      try allow(request, ["GET"])
      return try events(request)
    case (3, "missions"):
      try allow(request, ["GET", "POST"])
      return request.isRead ? try missions(request) : try importMissions(request)
    case (4, "missions"):
      try allow(request, ["GET", "PUT", "DELETE"])
      // HEAD is a GET without the body: it must never reach PUT or DELETE.
      if request.isRead { return try mission(parts[3]) }
      if request.method == "PUT" { return try replaceMission(parts[3], request) }
      return try removeMission(parts[3])
    case (5, "missions"):
      return try missionResource(parts[3], parts[4], request)
    default:
      throw ServiceError.notFound("no such resource: \(Self.oneLine(path, limit: 200))")
    }
  }

  /// Refuses, as HTTP requires (400), a header name with whitespace before its colon (RFC
  /// 9112 §5.1: `Host : x` is not read as `Host` here, but a proxy in front may read it so)
  /// and a `Host` that breaks RFC 9112 §3.2: none from an HTTP/1.1 client (any version
  /// after 1.0, which libmicrohttpd serves as 1.1), more than one line, or a value that
  /// cannot be a host and port (empty, or with a space or a control character). Either
  /// lets a proxy in front of the service read another host than the one checked here.
  /// (libmicrohttpd ends a value at a NUL and keeps no more of it, so a NUL inside a Host
  /// cannot be seen.)
  private func refuseMalformedHeaders(_ request: HTTPRequest) throws {
    if let name = request.spacedHeaderName {
      throw ServiceError.badRequest(
        "header '\(Self.oneLine(name, limit: 100))' has whitespace before its colon")
    }
    if request.hostLines > 1 {
      throw ServiceError.badRequest("\(request.hostLines) Host header lines: send one")
    }
    guard let host = request.header("host") else {
      if request.version != "HTTP/1.0" {
        throw ServiceError.badRequest("an HTTP/1.1 request needs a Host header")
      }
      return
    }
    if host.isEmpty || host.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) {
      throw ServiceError.badRequest(
        "Host '\(Self.oneLine(host, limit: 100))' is not a host name or address")
    }
  }

  /// Refuses what a web page elsewhere can make a browser send without asking: on a
  /// loopback listener without a token, a `Host` that is not loopback (DNS rebinding; with
  /// a token the page lacks it anyway, and a reverse proxy may pass its own name), and for
  /// a write, an `Origin` that is neither this service nor `--cors-origin` (cross-site
  /// request forgery: any page can POST a form to `/v1/missions/ID/cancel`).
  private func refuseForeignPages(_ request: HTTPRequest) throws {
    let host = request.header("host")
    if configuration.listensOnLoopback, configuration.token == nil, let host,
      !Self.isLoopbackHost(host)
    {
      throw ServiceError.forbidden(
        "Host '\(Self.oneLine(host, limit: 100))' is not this loopback service's address")
    }
    guard !request.isRead, request.method != "OPTIONS", let origin = request.header("origin")
    else { return }
    if origin == configuration.corsOrigin { return }
    if let host, origin == "http://\(host)" { return }
    throw ServiceError.forbidden(
      "a \(request.method) from the page at '\(Self.oneLine(origin, limit: 100))' is refused")
  }

  /// Whether a `Host` header names a loopback address (`127.x.y.z`, `[::1]`, `localhost`),
  /// with or without a port.
  static func isLoopbackHost(_ host: String) -> Bool {
    var name = Substring(host.lowercased())
    if name.hasPrefix("[") {
      name = name.dropFirst().prefix { $0 != "]" }
    } else if let colon = name.lastIndex(of: ":") {
      name = name[..<colon]
    }
    if name == "localhost" || name == "::1" { return true }
    var address = in_addr()
    return name.hasPrefix("127.") && inet_pton(AF_INET, String(name), &address) == 1
  }

  /// The name of the cookie that carries the token for the map page (a browser's
  /// `EventSource` cannot send an `Authorization` header).
  static let tokenCookie = "missiontrack_token"

  /// `GET /?token=TOKEN` with the right token: a redirect to `/` that sets the token as an
  /// HttpOnly, SameSite=Strict cookie, so the map page and its event stream work with
  /// `--token-file` and the token leaves the address bar. Nil for any other request.
  /// - Throws: `ServiceError.unauthorized` for a wrong token.
  private func signIn(_ request: HTTPRequest) throws -> HTTPResponse? {
    guard let token = configuration.token, request.path == "/", request.isRead,
      let given = request.query["token"]
    else { return nil }
    guard Self.constantTimeEqual(Array(given.utf8), Array(token.utf8)) else {
      throw ServiceError.unauthorized("wrong token")
    }
    return HTTPResponse(
      status: 303, contentType: "text/plain; charset=utf-8", text: "signed in\n",
      headers: [
        ("Location", "/"),
        ("Set-Cookie", "\(Self.tokenCookie)=\(token); Path=/; HttpOnly; SameSite=Strict"),
      ])
  }

  /// The value of cookie `name` in the request's `Cookie` header.
  private func cookie(_ name: String, in request: HTTPRequest) -> String? {
    for pair in (request.header("cookie") ?? "").split(separator: ";") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
        return parts[1].trimmingCharacters(in: .whitespaces)
      }
    }
    return nil
  }

  private func authorize(_ request: HTTPRequest) throws {
    guard let token = configuration.token else { return }
    if let given = cookie(Self.tokenCookie, in: request),
      Self.constantTimeEqual(Array(given.utf8), Array(token.utf8))
    {
      return
    }
    // The scheme is case-insensitive (RFC 9110 §11.1); the token is compared exactly.
    let given = Array((request.header("authorization") ?? "").utf8)
    let scheme = Array("bearer ".utf8)
    guard given.count > scheme.count,
      given.prefix(scheme.count).map({ $0 | 0x20 }) == scheme.map({ $0 | 0x20 }),
      Self.constantTimeEqual(Array(given.dropFirst(scheme.count)), Array(token.utf8))
    else {
      throw ServiceError.unauthorized("a valid 'Authorization: Bearer TOKEN' header is required")
    }
  }

  /// Whether `a` and `b` are equal, in time that depends on their lengths only.
  static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
    for index in 0..<max(a.count, b.count) {
      let x = index < a.count ? a[index] : 0
      let y = index < b.count ? b[index] : 0
      difference |= x ^ y
    }
    return difference == 0 && a.count == b.count
  }

  func allow(_ request: HTTPRequest, _ methods: [String]) throws {
    let effective = request.isRead ? "GET" : request.method
    guard methods.contains(effective) else {
      throw ServiceError.methodNotAllowed(request.method, allowed: methods)
    }
  }

  // MARK: - Errors

  /// The status and one-line message for an error of the engine, the store or a route.
  static func serviceError(_ error: any Error) -> ServiceError {
    switch error {
    case let error as ServiceError: return error
    case let error as TrackingError:
      switch error {
      case .unknownMission(let id): return .notFound("no mission with id '\(oneLine(id))'")
      case .illegalTransition, .anotherMissionActive, .changedElsewhere:
        return .conflict(oneLine("\(error)"))
      case .invalidConfiguration: return .invalid(oneLine("\(error)"))
      }
    case let error as StoreError:
      switch error {
      case .invalidMissionFile, .unreadableFile: return .invalid(oneLine("\(error)"))
      case .missionNotFound: return .notFound(oneLine("\(error)"))
      case .duplicateMission, .missionTracked, .trackingLeaseHeld, .secondTrackedMission,
        .trackedMissionRemoval:
        // A write that conflicts with the stored state (an import that would make a second
        // mission active, a removal of the tracked one, …).
        return .conflict(oneLine("\(error)"))
      case .busy, .readOnly, .full:
        // The database cannot take writes now.
        return .unavailable(oneLine("\(error)"))
      default: return .internalError(oneLine("\(error)"))
      }
    case let error as ProximityError: return .invalid(oneLine("\(error)"))
    default: return .internalError(oneLine("\(error)"))
    }
  }

  /// `text` on one line, at most `limit` characters.
  static func oneLine(_ text: String, limit: Int = 500) -> String {
    let flat = text.map { $0.isNewline || $0 == "\t" ? " " : $0 }
    return flat.count > limit ? String(flat.prefix(limit)) + "…" : String(flat)
  }
}
