/// One entry of the service's route table: a method, a path pattern such as
/// `/v1/missions/{id}/track`, and the handler that answers it.
struct Route: Sendable {
  /// What answers a request: a plain function of the service and the request value, whose
  /// `parameters` hold the pattern's `{name}` segments.
  typealias Handler = @Sendable (MissionService, HTTPRequest) throws -> HTTPResponse
  /// What answers a request whose response may come later (`HTTPServer.Answer.later`).
  typealias LaterHandler = @Sendable (MissionService, HTTPRequest) throws -> HTTPServer.Answer

  /// One segment of a pattern.
  enum Segment: Sendable, Equatable {
    /// A segment that must be this text.
    case literal(String)
    /// Any one segment, kept under this name.
    case parameter(String)
  }

  /// The method, upper case (`GET` also answers `HEAD`).
  let method: String
  /// The pattern as written in the table.
  let pattern: String
  /// The pattern split at each `/` (the first segment empty, as in `HTTPRequest.segments`).
  let segments: [Segment]
  let handler: LaterHandler

  /// A route for `method` on `pattern` (`{name}` marks a parameter segment).
  init(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
    self.init(method, pattern, later: { .now(try handler($0, $1)) })
  }

  /// A route for `method` on `pattern` whose handler may answer later.
  init(_ method: String, _ pattern: String, later handler: @escaping LaterHandler) {
    self.method = method
    self.pattern = pattern
    segments = pattern.split(separator: "/", omittingEmptySubsequences: false).map { part in
      part.hasPrefix("{") && part.hasSuffix("}")
        ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
    }
    self.handler = handler
  }

  /// The parameters of a request path given as its segments, or nil when the pattern does not
  /// match it (a parameter matches any one segment, `%2F` in it included).
  func parameters(of path: [String]) -> [String: String]? {
    guard path.count == segments.count else { return nil }
    var parameters: [String: String] = [:]
    for (segment, text) in zip(segments, path) {
      switch segment {
      case .literal(let literal): if literal != text { return nil }
      case .parameter(let name): parameters[name] = text
      }
    }
    return parameters
  }
}
