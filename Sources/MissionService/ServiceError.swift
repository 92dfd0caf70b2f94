import MissionTracking

/// A request the service refuses, or a failure of its own: an HTTP status and one line,
/// sent as `{"error":{"status":N,"message":"…"}}`.
struct ServiceError: Error, Sendable, CustomStringConvertible {
  /// The HTTP status.
  var status: Int
  /// One line for the client.
  var message: String

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
    return response
  }

  static func badRequest(_ message: String) -> ServiceError {
    ServiceError(status: 400, message: message)
  }
  static func unauthorized(_ message: String) -> ServiceError {
    ServiceError(status: 401, message: message)
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
  /// `method` is not one of `allowed` on this path.
  static func methodNotAllowed(_ method: String, allowed: [String]) -> ServiceError {
    ServiceError(
      status: 405, message: "\(method) is not allowed here; use \(allowed.joined(separator: ", "))")
  }
}
