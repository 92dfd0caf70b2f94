import Foundation
import TextRules

/// One HTTP request to `/v1/ingest/…` as the decoders see it: a plain value the service
/// fills from its server and the tests and the fuzzer build by hand.
package struct IngestRequest: Sendable {
  /// The method, upper case as sent (`GET`, `POST`).
  package var method: String
  /// The path without the query.
  package var path: String
  /// The query's items in order, already percent-decoded; a name given twice is kept twice.
  package var query: [(name: String, value: String)]
  /// The headers in order, names as sent (looked up in any case by `header(_:)`).
  package var headers: [(name: String, value: String)]
  /// The body.
  package var body: [UInt8]
  /// When the service received the request: the time of an OsmAnd report that carries none
  /// (Traccar stamps those with its clock too). The decoders read no clock themselves.
  package var receivedAt: Date

  /// Creates a request.
  package init(
    method: String = "POST", path: String = "/", query: [(name: String, value: String)] = [],
    headers: [(name: String, value: String)] = [], body: [UInt8] = [],
    receivedAt: Date = Date(timeIntervalSince1970: 0)
  ) {
    self.method = method
    self.path = path
    self.query = query
    self.headers = headers
    self.body = body
    self.receivedAt = receivedAt
  }

  /// The first header named `name`, in any case (RFC 9110 §5.1), or nil.
  package func header(_ name: String) -> String? {
    headers.first { HTTPFieldText.namesEqual($0.name, name) }?.value
  }

  /// The last query value named `name` (the last one wins, as in Traccar's decoders), or nil.
  package func queryValue(_ name: String) -> String? {
    query.last { $0.name == name }?.value
  }

  /// The media type of the body, lower-cased, without parameters (`application/json`).
  package var contentType: String? {
    header("content-type").map(HTTPFieldText.mediaType)
  }

  /// The secret the request presents, by the one rule of every ingest endpoint: the password
  /// of `Authorization: Basic` (OwnTracks, GPSLogger), else the token of
  /// `Authorization: Bearer` (Overland, fix lines), else the query item `secret` (a client
  /// such as OsmAnd that can only be given a URL). Nil when there is none.
  package var presentedSecret: String? {
    if let authorization = header("authorization") {
      let parts = authorization.split(separator: " ", maxSplits: 1)
      if parts.count == 2 {
        let credentials = parts[1].trimmingCharacters(in: .whitespaces)
        switch parts[0].lowercased() {
        case "basic":
          // `user:password`; the password is everything after the first colon (RFC 7617).
          if let data = Data(base64Encoded: credentials),
            let pair = String(data: data, encoding: .utf8),
            let colon = pair.firstIndex(of: ":")
          {
            return String(pair[pair.index(after: colon)...])
          }
        case "bearer": return credentials
        default: break
        }
      }
    }
    return queryValue("secret")
  }
}
