import Foundation
import MissionStore
import MissionTracking
import TraceFormats

@testable import MissionService
@testable import ServiceTestSupport

/// `MissionService` over a sandbox's database, answering requests in-process: each request
/// is an `HTTPRequest` value handed to `respond(to:)`, no socket and no process. The answer
/// comes back as a `RawHTTP.Response` with the headers the server would add, so that a test
/// reads it as it reads one from the binary.
///
/// Each request runs on a thread of its own, as on the server (a route may wait for the
/// engine's actor there), while the test awaits it without holding a thread of the
/// cooperative pool the engine needs.
final class InProcessService: @unchecked Sendable {
  let database: MissionDatabase
  let engine: MissionEngine
  let service: MissionService
  /// The database's tracking lease, held as `serve` holds it: one tracker per database.
  private let lease: TrackingLease
  /// The base URL when the service listens (`listen: true`), else nil.
  private(set) var url: String?

  /// A service over `sandbox`'s database; with `replay`, the trace is the receiver (as
  /// `serve --replay`), else a source with no fixes. `workerReplays` gives other workers a
  /// trace each (worker id → path), read from its start each time the worker's mission
  /// becomes active; a worker in neither has no source in this process. With `listen`, the
  /// service also listens on a free loopback port (`url`), for a browser. `configure` sets
  /// the rest as `serve`'s options would (token, CORS origin, source-down limit).
  init(
    _ sandbox: ServiceSandbox, replay: String? = nil, workerReplays: [String: String] = [:],
    listen: Bool = false, configure: (inout ServiceConfiguration) -> Void = { _ in }
  ) async throws {
    database = try MissionDatabase(path: sandbox.databasePath)
    lease = try database.claimTracking(holder: "missiontrack serve")
    engine = MissionEngine(
      store: database,
      sources: { worker in
        if let path = workerReplays[worker] {
          return TraceReplaySource(path: path, pacing: .asFastAsPossible)
        }
        guard worker == Worker.localID else { return nil }
        return replay.map { TraceReplaySource(path: $0, pacing: .asFastAsPossible) }
          ?? TraceReplaySource(bytes: [], name: "none", pacing: .asFastAsPossible)
      })
    var configuration = ServiceConfiguration()
    if let replay {
      // As `serve --replay` describes its source in `/v1/status`.
      configuration.sourceKind = "replay"
      configuration.sourceDetail = replay
    }
    // A free port, for a browser: the default 8947 may be `serve`'s.
    configuration.port = 0
    configure(&configuration)
    service = MissionService(database: database, engine: engine, configuration: configuration)
    try await engine.open()
    if listen {
      url = try service.start()
    } else {
      service.startWithoutListening()
    }
  }

  /// Stops the service and its engine, as SIGTERM stops `serve`.
  func stop() async {
    await service.stop(reason: nil)
    lease.release()
  }

  /// Runs `body` with a service over `sandbox` (see `init`), and stops it after, also when
  /// `body` throws.
  static func run(
    _ sandbox: ServiceSandbox, replay: String? = nil, workerReplays: [String: String] = [:],
    listen: Bool = false, configure: (inout ServiceConfiguration) -> Void = { _ in },
    _ body: (InProcessService) async throws -> Void
  ) async throws {
    let server = try await InProcessService(
      sandbox, replay: replay, workerReplays: workerReplays, listen: listen, configure: configure)
    do {
      try await body(server)
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
  }

  /// `method path` (the path with its query, percent-encoded as on the wire) with `headers`
  /// (a `Host: 127.0.0.1` unless one is given) and `body`. A streamed answer (Server-Sent
  /// Events) is read for `streamFor` seconds, then closed as by a client that leaves.
  func request(
    _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = [],
    streamFor: Double = 0
  ) async throws -> RawHTTP.Response {
    let request = Self.request(method, path, headers: headers, body: body)
    let service = self.service
    let response = await withCheckedContinuation { continuation in
      Thread { continuation.resume(returning: service.respond(to: request)) }.start()
    }
    var bytes: [UInt8] = []
    if case .stream(let stream) = response.body {
      bytes = await Self.read(stream, for: streamFor)
    }
    return answer(response, to: method, streamed: bytes)
  }

  /// `request(method, path, headers:, body:)` answered on the calling thread, which must be
  /// a thread of its own (a test's `Thread`), never one of the cooperative pool: the route
  /// may wait there for the engine's actor. A stream is closed unread.
  func requestOnThisThread(
    _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8] = []
  ) -> RawHTTP.Response {
    answer(
      service.respond(to: Self.request(method, path, headers: headers, body: body)), to: method,
      streamed: [])
  }

  /// `response` as a client reads it: the server's common headers added, no body for HEAD,
  /// `streamed` as the body of a stream (which is closed).
  private func answer(_ response: HTTPResponse, to method: String, streamed: [UInt8])
    -> RawHTTP.Response
  {
    var headers: [String: String] = [:]
    for (name, value) in service.commonHeaders + response.headers.map({ ($0.name, $0.value) }) {
      headers[name.lowercased()] = value
    }
    var bytes = streamed
    switch response.body {
    case .bytes(let body):
      // HEAD is answered as GET; the server leaves the body out.
      if method != "HEAD" { bytes = body }
    case .stream(let stream):
      stream.close()
    }
    return RawHTTP.Response(status: response.status, headers: headers, body: bytes)
  }

  /// What `stream` carries within `seconds`.
  private static func read(_ stream: ResponseStream, for seconds: Double) async -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      let read = buffer.withUnsafeMutableBytes { stream.read(into: $0, suspend: {}, wake: {}) }
      switch read {
      case .bytes(let count): bytes += buffer.prefix(count)
      case .waiting: try? await Task.sleep(for: .milliseconds(50))
      case .end: return bytes
      }
    }
    return bytes
  }

  /// `method path` with a text body of `contentType` (none when nil).
  func send(
    _ method: String, _ path: String, contentType: String?, _ text: String
  ) async throws -> RawHTTP.Response {
    try await request(
      method, path, headers: contentType.map { ["Content-Type": $0] } ?? [:],
      body: Array(text.utf8))
  }

  /// The request value the server would build from this request line, headers and body:
  /// the path decoded, its segments split before decoding, query arguments decoded (in
  /// order), header names lower-cased.
  static func request(
    _ method: String, _ target: String, headers: [String: String], body: [UInt8]
  ) -> HTTPRequest {
    let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
    let rawPath = String(parts[0])
    var query = QueryItems()
    if parts.count == 2 {
      for pair in parts[1].split(separator: "&") {
        let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        func decoded(_ text: Substring) -> String {
          let spaced = text.replacingOccurrences(of: "+", with: " ")
          return spaced.removingPercentEncoding ?? spaced
        }
        let name = decoded(nameValue[0])
        query.append(name, nameValue.count == 2 ? decoded(nameValue[1]) : "")
      }
    }
    var lowered: [String: String] = ["host": "127.0.0.1"]
    for (name, value) in headers { lowered[name.lowercased()] = value }
    return HTTPRequest(
      method: method, version: "HTTP/1.1", path: rawPath.removingPercentEncoding ?? rawPath,
      segments: HTTPServer.segments(of: rawPath) ?? [], query: query, headers: lowered,
      hostLines: 1, spacedHeaderName: nil, body: body)
  }
}
