import TextRules

/// One HTTP request as the service's routes see it: method, path, query, headers and the
/// whole body (read by `HTTPServer` up to its limit).
struct HTTPRequest: Sendable {
  /// The method, upper case as sent (`GET`, `POST`, ...).
  var method: String
  /// The protocol version as sent (`HTTP/1.1`, `HTTP/1.0`).
  var version: String
  /// The path without the query, percent-decoded by libmicrohttpd.
  var path: String
  /// The path's segments, split before decoding (`["", "v1", "missions", "a/b"]` for
  /// `/v1/missions/a%2Fb`): what the routes match.
  var segments: [String]
  /// The query arguments, decoded, in order (`query[name]` is the first value of `name`).
  var query: QueryItems
  /// The headers, names lower-cased; a header given twice keeps the first value. From the
  /// server, only those named in `headerNames`.
  var headers: [String: String]
  /// How many `Host` lines the request has: exactly one is valid for HTTP/1.1, at most one
  /// for HTTP/1.0 (RFC 9112 §3.2).
  var hostLines: Int
  /// The first header name sent with whitespace before its colon (`Host : x`), or nil.
  var spacedHeaderName: String?

  /// The headers `HTTPServer` reads into `headers` (lower case): every one a route uses.
  static let headerNames = [
    "authorization", "content-type", "cookie", "host", "last-event-id", "origin",
    // OwnTracks names its device in these (`/v1/ingest/owntracks`).
    "x-limit-d", "x-limit-u",
  ]
  /// The body.
  var body: [UInt8]
  /// Whether the service's policy already let the request in from its headers, before the
  /// server read its body (`MissionService.admit`): it is not run twice.
  var admitted = false
  /// The path parameters of the route that matched (`id` for `/v1/missions/{id}`).
  var parameters: [String: String] = [:]

  /// The path parameter `name` of the matched route (empty if the route has none).
  func parameter(_ name: String) -> String { parameters[name] ?? "" }

  /// Whether the method is GET or HEAD (a GET whose body libmicrohttpd leaves out).
  var isRead: Bool { method == "GET" || method == "HEAD" }

  /// The header `name`, given in lower case as `headerNames` spells it.
  func header(_ name: String) -> String? { headers[name] }

  private static let headerNameBytes = headerNames.map { Array($0.utf8) }

  /// The name of `headerNames` that `sent` spells in any case of its ASCII letters, or nil.
  static func headerName(_ sent: UnsafeRawBufferPointer) -> String? {
    let index = headerNameBytes.firstIndex { name in
      name.count == sent.count
        && zip(name, sent).allSatisfy { $0 == $1 || (0x41...0x5A ~= $1 && $0 == $1 + 0x20) }
    }
    return index.map { headerNames[$0] }
  }

  /// The media type of the body, lower-cased, without parameters (`text/csv`).
  var contentType: String? {
    header("content-type").map(HTTPFieldText.mediaType)
  }
}
