/// One HTTP request as the service's routes see it: method, path, query, headers and the
/// whole body (read by `HTTPServer` up to its limit).
struct HTTPRequest: Sendable {
  /// The method, upper case as sent (`GET`, `POST`, ...).
  var method: String
  /// The path without the query, percent-decoded by libmicrohttpd.
  var path: String
  /// The path's segments, split before decoding (`["", "v1", "missions", "a/b"]` for
  /// `/v1/missions/a%2Fb`): what the routes match.
  var segments: [String]
  /// The query arguments, decoded; a name given twice keeps the first value.
  var query: [String: String]
  /// The headers, names lower-cased; a header given twice keeps the first value. From the
  /// server, only those named in `headerNames`.
  var headers: [String: String]

  /// The headers `HTTPServer` reads into `headers` (lower case): every one a route uses.
  static let headerNames = [
    "authorization", "content-type", "cookie", "host", "last-event-id", "origin",
  ]
  /// The body.
  var body: [UInt8]

  /// Whether the method is GET or HEAD (a GET whose body libmicrohttpd leaves out).
  var isRead: Bool { method == "GET" || method == "HEAD" }

  /// The header `name` (any case).
  func header(_ name: String) -> String? { headers[name.lowercased()] }

  /// The media type of the body, lower-cased, without parameters (`text/csv`).
  var contentType: String? {
    guard let value = header("content-type") else { return nil }
    let type = value.split(separator: ";", maxSplits: 1).first ?? ""
    return type.trimmingCharacters(in: .whitespaces).lowercased()
  }
}
