import MissionTracking
import TextRules

extension MissionService {
  /// The API of DESIGN.md §5 and §7, registered in this one place: method and path pattern → handler.
  /// A `HEAD` is answered as its `GET` (without the body); another method on a path of the
  /// table gets 405 with the path's methods as `Allow`; a path not here gets 404.
  static let routes = RouteTable(
    [
      Route("GET", "/") { _, _ in .page(MapPage.html, type: "text/html; charset=utf-8") },
      Route("GET", "/map.js") { _, _ in
        .page(MapPage.script, type: "text/javascript; charset=utf-8")
      },
      Route("GET", "/map.css") { _, _ in .page(MapPage.style, type: "text/css; charset=utf-8") },
      // The live map's geometry, computed by the report's own Swift code.
      Route("GET", "/map.json") { try $0.mapData($1) },
      // Browsers ask for it; there is none, and a 404 would only fill their logs.
      Route("GET", "/favicon.ico") { _, _ in
        HTTPResponse(status: 204, contentType: "image/x-icon", body: [])
      },
      Route("GET", "/healthz") { service, _ in service.health() },
      Route("GET", "/metrics") { service, _ in try service.metrics() },
      Route("GET", "/v1/status") { service, _ in try service.status() },
      Route("GET", "/v1/events") { try $0.events($1) },
      Route("GET", "/v1/missions") { try $0.missions($1) },
      Route("POST", "/v1/missions") { try $0.importMissions($1) },
      Route("GET", "/v1/missions/{id}") { try $0.mission($1) },
      Route("PUT", "/v1/missions/{id}") { try $0.replaceMission($1) },
      Route("DELETE", "/v1/missions/{id}") { try $0.removeMission($1) },
    ]
      // `arrive` is the tracker's own: no route (404, not 405).
      + [MissionAction.accept, .start, .submit, .complete, .cancel, .expire].map { action in
        Route("POST", "/v1/missions/{id}/\(action.rawValue)") { try $0.perform(action, $1) }
      }
      + [
        Route("GET", "/v1/missions/{id}/track") { try $0.track($1) },
        Route("GET", "/v1/missions/{id}/events") { try $0.missionEvents($1) },
        Route("GET", "/v1/missions/{id}/report.svg") { try $0.report($1) },
        // Workers and watches (DESIGN §7).
        Route("GET", "/v1/workers") { try $0.workers($1) },
        Route("GET", "/v1/workers/{id}") { try $0.worker($1) },
        Route("PUT", "/v1/workers/{id}") { try $0.putWorker($1) },
        Route("DELETE", "/v1/workers/{id}") { try $0.removeWorker($1) },
        Route("GET", "/v1/watches") { try $0.watches($1) },
        Route("POST", "/v1/watches") { try $0.addWatch($1) },
        Route("GET", "/v1/watches/{id}") { try $0.watch($1) },
        Route("DELETE", "/v1/watches/{id}") { try $0.removeWatch($1) },
        // Phones and trackers (DESIGN §8): no service token, the device's secret instead.
        Route("POST", "/v1/ingest/owntracks", later: { try $0.ingest(.owntracks, $1) }),
        Route("GET", "/v1/ingest/osmand", later: { try $0.ingest(.osmand, $1) }),
        Route("POST", "/v1/ingest/osmand", later: { try $0.ingest(.osmand, $1) }),
        Route("POST", "/v1/ingest/overland", later: { try $0.ingest(.overland, $1) }),
        Route("POST", "/v1/ingest/fixes", later: { try $0.ingest(.native, $1) }),
        // Events out (DESIGN §9).
        Route("GET", "/v1/webhooks") { try $0.listWebhooks($1) },
        Route("POST", "/v1/webhooks") { try $0.addWebhook($1) },
        Route("DELETE", "/v1/webhooks/{id}") { try $0.removeWebhook($1) },
        Route("GET", "/v1/webhooks/{id}/deliveries") { try $0.webhookDeliveries($1) },
        Route("POST", "/v1/webhooks/{id}/redeliver") { try $0.redeliverWebhook($1) },
      ])

  /// The policy every request passes, in this order, once, before its route: each step
  /// refuses it (throws), answers it itself (returns the response) or passes it on (nil). For a
  /// request with a body the server runs it from the headers, before it reads the body.
  static let policy: [@Sendable (MissionService, HTTPRequest) throws -> HTTPResponse?] = [
    { service, _ in try service.refuseWhileStopping() },
    { _, request in try refuseMalformedHeaders(request) },
    { service, request in service.answerPreflight(request) },
    { service, request in try service.refuseForeignPages(request) },
    { service, request in try service.signIn(request) },
    { service, request in try service.authorize(request) },
  ]

  /// The answer to `request`: the policy (unless the server already ran it from the request's
  /// headers), then its route; any error becomes the one JSON error shape (`serviceError`).
  /// What `HTTPServer` calls; an ingest route's response comes later.
  func answer(_ request: HTTPRequest) -> HTTPServer.Answer {
    let answer: HTTPServer.Answer
    do {
      // An admitted request passed the policy from its headers; a stop may have begun
      // while its body came.
      let policy = request.admitted ? try refuseWhileStopping() : try applyPolicy(request)
      if let response = policy {
        answer = .now(response)
      } else {
        answer = try route(request)
      }
    } catch {
      answer = .now(Self.serviceError(error).response)
    }
    switch answer {
    case .now(let response):
      monitor.noteRequest(status: response.status)
      return answer
    case .later(let pending):
      let noted = PendingResponse()
      pending.whenReady { [monitor] response in
        monitor.noteRequest(status: response.status)
        noted.fulfil(response)
      }
      return .later(noted)
    }
  }

  /// `answer(_:)` waited for on this thread (a thread of its own, never the cooperative
  /// pool's): what in-process tests call without a socket.
  func respond(to request: HTTPRequest) -> HTTPResponse { answer(request).response }

  /// The policy's answer for a request whose body is still to come, or nil to read the body:
  /// a client without the token is refused before the server reads, and holds, up to 16 MiB.
  func admit(_ request: HTTPRequest) -> HTTPResponse? {
    let response: HTTPResponse
    do {
      guard let answer = try applyPolicy(request) else { return nil }
      response = answer
    } catch {
      response = Self.serviceError(error).response
    }
    monitor.noteRequest(status: response.status)
    return response
  }

  private func applyPolicy(_ request: HTTPRequest) throws -> HTTPResponse? {
    for step in Self.policy {
      if let answer = try step(self, request) { return answer }
    }
    return nil
  }

  private func route(_ request: HTTPRequest) throws -> HTTPServer.Answer {
    switch Self.routes.match(
      method: request.isRead ? "GET" : request.method, segments: request.segments)
    {
    case .route(let route, let parameters):
      var request = request
      request.parameters = parameters
      return try route.handler(self, request)
    case .wrongMethod(let allowed):
      throw ServiceError.methodNotAllowed(request.method, allowed: allowed)
    case .notFound:
      throw ServiceError.notFound("no such resource: \(Self.oneLine(request.path, limit: 200))")
    }
  }
}

extension HTTPResponse {
  /// A 200 with a page of the service itself (the map page's files).
  static func page(_ text: String, type: String) -> HTTPResponse {
    HTTPResponse(status: 200, contentType: type, text: text)
  }
}
