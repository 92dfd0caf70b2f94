import Foundation
import ServiceTestSupport
import Testing

/// Checks the service tests share: the one error shape of DESIGN.md §5, JSON lines, short
/// requests.
enum ServiceCheck {
  /// Expects `response` to be exactly one JSON object `{"error":{"status":N,"message":"…"}}`
  /// on one line, with `status` both as the HTTP status and in the body; returns the message.
  @discardableResult
  static func error(
    _ response: RawHTTP.Response, _ status: Int,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> String {
    #expect(
      response.status == status, "got \(response.status): \(response.text.prefix(300))",
      sourceLocation: sourceLocation)
    #expect(
      response.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
    let text = response.text
    #expect(
      text.hasSuffix("}\n") && !text.dropLast().contains(where: \.isNewline),
      "not one line: \(text.prefix(300))", sourceLocation: sourceLocation)
    guard let object = response.json, Set(object.keys) == ["error"],
      let error = object["error"] as? [String: Any], Set(error.keys) == ["status", "message"],
      let message = error["message"] as? String
    else {
      Issue.record("not the error shape: \(text.prefix(300))", sourceLocation: sourceLocation)
      return ""
    }
    #expect(error["status"] as? Int == status, sourceLocation: sourceLocation)
    #expect(
      !message.isEmpty && !message.contains(where: \.isNewline), "message: \(message)",
      sourceLocation: sourceLocation)
    return message
  }

  /// The JSON objects of `text`, one per line; a line that is not one is recorded as an issue.
  static func lines(
    _ text: String, sourceLocation: SourceLocation = #_sourceLocation
  ) -> [[String: Any]] {
    text.split(separator: "\n").compactMap { line in
      let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
      if object == nil {
        Issue.record("not a JSON object: \(line.prefix(200))", sourceLocation: sourceLocation)
      }
      return object
    }
  }

  /// `GET path` (or `method`) on `server`.
  static func get(
    _ server: ServeProcess, _ path: String, method: String = "GET",
    headers: [String: String] = [:]
  ) throws -> RawHTTP.Response {
    try RawHTTP.request(port: server.port, method, path, headers: headers)
  }

  /// `method path` on `server` with a text body of `contentType`.
  static func send(
    _ server: ServeProcess, _ method: String, _ path: String, contentType: String?,
    _ text: String
  ) throws -> RawHTTP.Response {
    try RawHTTP.request(
      port: server.port, method, path,
      headers: contentType.map { ["Content-Type": $0] } ?? [:], text: text)
  }

  /// The ids of the `missions` array of a response.
  static func ids(_ response: RawHTTP.Response) -> [String] {
    ((response.json?["missions"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
  }

  /// Whether `/healthz` answers 200 `ok`.
  static func healthy(_ server: ServeProcess) -> Bool {
    guard let response = try? get(server, "/healthz") else { return false }
    return response.status == 200 && response.text == "ok\n"
  }

  /// `GET path` (or `method`) on an in-process `service`.
  static func get(
    _ service: InProcessService, _ path: String, method: String = "GET",
    headers: [String: String] = [:]
  ) async throws -> RawHTTP.Response {
    try await service.request(method, path, headers: headers)
  }

  /// `method path` on an in-process `service` with a text body of `contentType`.
  static func send(
    _ service: InProcessService, _ method: String, _ path: String, contentType: String?,
    _ text: String
  ) async throws -> RawHTTP.Response {
    try await service.send(method, path, contentType: contentType, text)
  }

  /// Whether `/healthz` of an in-process `service` answers 200 `ok`.
  static func healthy(_ service: InProcessService) async -> Bool {
    guard let response = try? await get(service, "/healthz") else { return false }
    return response.status == 200 && response.text == "ok\n"
  }
}
