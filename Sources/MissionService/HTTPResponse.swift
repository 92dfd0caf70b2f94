/// A response for `HTTPServer` to send: a status, headers and either a whole body or a
/// stream (Server-Sent Events).
struct HTTPResponse: Sendable {
  /// What is sent after the headers.
  enum Body: Sendable {
    /// These bytes, with a `Content-Length`.
    case bytes([UInt8])
    /// Bytes pushed while the connection stays open, until the stream closes.
    case stream(ResponseStream)
  }

  var status: Int
  var headers: [(name: String, value: String)]
  var body: Body

  init(status: Int, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
    self.status = status
    self.headers = [("Content-Type", contentType)] + headers.map { (name: $0.0, value: $0.1) }
    self.body = .bytes(body)
  }

  init(status: Int, contentType: String, text: String, headers: [(String, String)] = []) {
    self.init(status: status, contentType: contentType, body: Array(text.utf8), headers: headers)
  }

  init(status: Int, contentType: String, stream: ResponseStream, headers: [(String, String)] = []) {
    self.status = status
    self.headers = [("Content-Type", contentType)] + headers.map { (name: $0.0, value: $0.1) }
    self.body = .stream(stream)
  }

  /// A JSON body (`application/json`).
  static func json(_ text: String, status: Int = 200) -> HTTPResponse {
    HTTPResponse(status: status, contentType: "application/json", text: text + "\n")
  }
}
