import Foundation
import TextRules

/// The steps of `MissionService.policy`: what every request must pass before its route.
extension MissionService {
  /// 503 once `stop()` has begun.
  func refuseWhileStopping() throws -> HTTPResponse? {
    if isStopping { throw ServiceError.unavailable("the service is shutting down") }
    return nil
  }

  /// Refuses, as HTTP requires (400), a header name with whitespace before its colon (RFC
  /// 9112 §5.1: `Host : x` is not read as `Host` here, but a proxy in front may read it so)
  /// and a `Host` that breaks RFC 9112 §3.2: none from an HTTP/1.1 client (any version
  /// after 1.0, which libmicrohttpd serves as 1.1), more than one line, or a value that is
  /// not a host and optional port (`HostHeader`). Either lets a proxy in front of the service
  /// read another host than the one checked here. (libmicrohttpd ends a value at a NUL and
  /// keeps no more of it, so a NUL inside a Host cannot be seen.)
  static func refuseMalformedHeaders(_ request: HTTPRequest) throws -> HTTPResponse? {
    if let name = request.spacedHeaderName {
      throw ServiceError.badRequest(
        "header '\(oneLine(name, limit: 100))' has whitespace before its colon")
    }
    if request.hostLines > 1 {
      throw ServiceError.badRequest("\(request.hostLines) Host header lines: send one")
    }
    guard let host = request.header("host") else {
      if request.version != "HTTP/1.0" {
        throw ServiceError.badRequest("an HTTP/1.1 request needs a Host header")
      }
      return nil
    }
    if HostHeader(host) == nil {
      throw ServiceError.badRequest(
        "Host '\(oneLine(host, limit: 100))' is not a host name or address with a port")
    }
    return nil
  }

  /// A browser's CORS preflight, when `--cors-origin` is set: it never carries credentials,
  /// so it is answered before the token check; it reveals nothing but the allowed methods
  /// and headers.
  func answerPreflight(_ request: HTTPRequest) -> HTTPResponse? {
    guard request.method == "OPTIONS", configuration.corsOrigin != nil else { return nil }
    return HTTPResponse(
      status: 204, contentType: "text/plain", body: [],
      headers: [
        ("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE, OPTIONS"),
        ("Access-Control-Allow-Headers", "Authorization, Content-Type, Last-Event-ID"),
      ])
  }

  /// Whether `request` is for `/healthz`, which answers any caller (a load balancer or
  /// systemd has no token and may use any name for the host).
  private static func isHealthCheck(_ request: HTTPRequest) -> Bool {
    request.path == "/healthz"
  }

  /// Refuses what a web page elsewhere can make a browser send without asking: on a
  /// loopback listener without a token, a `Host` that is not loopback (DNS rebinding; with
  /// a token the page lacks it anyway, and a reverse proxy may pass its own name), and for
  /// a write, an `Origin` that is neither this service nor `--cors-origin` (cross-site
  /// request forgery: any page can POST a form to `/v1/missions/ID/cancel`).
  func refuseForeignPages(_ request: HTTPRequest) throws -> HTTPResponse? {
    if Self.isHealthCheck(request) { return nil }
    let host = request.header("host")
    if configuration.listensOnLoopback, configuration.token == nil, let host,
      HostHeader(host)?.isLoopback != true
    {
      throw ServiceError.forbidden(
        "Host '\(Self.oneLine(host, limit: 100))' is not this loopback service's address")
    }
    guard !request.isRead, request.method != "OPTIONS", let origin = request.header("origin")
    else { return nil }
    if origin == configuration.corsOrigin { return nil }
    if let host, origin == "http://\(host)" { return nil }
    throw ServiceError.forbidden(
      "a \(request.method) from the page at '\(Self.oneLine(origin, limit: 100))' is refused")
  }

  /// The name of the cookie that carries the token for the map page (a browser's
  /// `EventSource` cannot send an `Authorization` header).
  static let tokenCookie = "missiontrack_token"

  /// `GET /?token=TOKEN` with the right token: a redirect to `/` that sets the token as an
  /// HttpOnly, SameSite=Strict cookie, so the map page and its event stream work with
  /// `--token-file` and the token leaves the address bar. Nil for any other request.
  /// - Throws: `ServiceError.unauthorized` for a wrong token.
  func signIn(_ request: HTTPRequest) throws -> HTTPResponse? {
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

  /// With a token, 401 unless the request carries it, as the cookie or as
  /// `Authorization: Bearer TOKEN`; `/v1/ingest/…` checks its device's secret instead.
  func authorize(_ request: HTTPRequest) throws -> HTTPResponse? {
    guard let token = configuration.token, !Self.isHealthCheck(request), !Self.isIngest(request)
    else { return nil }
    if let given = cookie(Self.tokenCookie, in: request),
      Self.constantTimeEqual(Array(given.utf8), Array(token.utf8))
    {
      return nil
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
    return nil
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
}
