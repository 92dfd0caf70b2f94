import MissionTracking
import TextRules

/// A request the service refuses, or a failure of its own: an HTTP status and one line,
/// sent as `{"error":{"status":N,"message":"…"}}`.
struct ServiceError: Error, Sendable, CustomStringConvertible {
  /// The HTTP status.
  var status: Int
  /// One line for the client.
  var message: String
  /// For 405: the methods the path allows, sent as the `Allow` header (RFC 9110 §15.5.6).
  var allowedMethods: [String] = []

  var description: String { message }

  /// The error as a response: one JSON object.
  var response: HTTPResponse {
    var error = JSONObjectWriter()
    error.add("status", status)
    error.add("message", message)
    var body = JSONObjectWriter()
    body.addRaw("error", json: error.result)
    var response = HTTPResponse.json(body.result, status: status)
    if status == 401 { response.headers.append((name: "WWW-Authenticate", value: "Bearer")) }
    if !allowedMethods.isEmpty {
      response.headers.append((name: "Allow", value: allowedMethods.joined(separator: ", ")))
    }
    return response
  }

  static func badRequest(_ message: String) -> ServiceError {
    ServiceError(status: 400, message: message)
  }
  static func unauthorized(_ message: String) -> ServiceError {
    ServiceError(status: 401, message: message)
  }
  static func forbidden(_ message: String) -> ServiceError {
    ServiceError(status: 403, message: message)
  }
  static func notFound(_ message: String) -> ServiceError {
    ServiceError(status: 404, message: message)
  }
  static func conflict(_ message: String) -> ServiceError {
    ServiceError(status: 409, message: message)
  }
  static func tooLarge(_ message: String) -> ServiceError {
    ServiceError(status: 413, message: message)
  }
  static func unsupportedType(_ message: String) -> ServiceError {
    ServiceError(status: 415, message: message)
  }
  static func invalid(_ message: String) -> ServiceError {
    ServiceError(status: 422, message: message)
  }
  static func unavailable(_ message: String) -> ServiceError {
    ServiceError(status: 503, message: message)
  }
  static func internalError(_ message: String) -> ServiceError {
    ServiceError(status: 500, message: message)
  }
  /// The listen address is unusable (a start-up error, not a response).
  static func listen(_ message: String) -> ServiceError {
    ServiceError(status: 0, message: message)
  }
  /// `method` is not one of `allowed` on this path; GET allows HEAD too, so `Allow` names
  /// both.
  static func methodNotAllowed(_ method: String, allowed: [String]) -> ServiceError {
    let methods = allowed.flatMap { $0 == "GET" ? ["GET", "HEAD"] : [$0] }
    return ServiceError(
      status: 405,
      message: "\(MissionService.oneLine(method, limit: 32)) is not allowed here; use "
        + methods.joined(separator: ", "),
      allowedMethods: methods)
  }
}
