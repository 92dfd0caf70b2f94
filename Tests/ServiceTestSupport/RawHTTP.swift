import Foundation

/// HTTP over a plain loopback TCP socket, for tests: what a real client sends (also garbage
/// and half requests), and the response read back as bytes.
///
/// Responses are read as HTTP/1.0 would see them: `request` sends `Connection: close` and
/// reads to the end, so no chunked decoding is needed except for `chunked` responses, which
/// `dechunk` undoes. Every call has a timeout; nothing here can hang a test.
public final class RawHTTP: @unchecked Sendable {
  public struct Response: Sendable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]
    public var text: String { String(decoding: body, as: UTF8.self) }
    /// The body parsed as a JSON object (nil when it is not one).
    public var json: [String: Any]? {
      (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }
  }

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
  }

  public let fd: Int32

  /// Connects to 127.0.0.1:`port`, from the loopback address `source` when given (any of
  /// 127.0.0.0/8: a second client address for limits per address).
  public init(port: Int, timeout: Double = 10, source: String? = nil) throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
    var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    // Bound to `source` first when given; then connected.
    for (host, port, binds) in [(source, 0, true), ("127.0.0.1", port, false)] {
      guard let host else { continue }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = UInt16(port).bigEndian
      address.sin_addr.s_addr = inet_addr(host)
      let result = withUnsafePointer(to: &address) { [fd] pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          let size = socklen_t(MemoryLayout<sockaddr_in>.size)
          return binds ? bind(fd, $0, size) : connect(fd, $0, size)
        }
      }
      guard result == 0 else {
        close(fd)
        throw Failure(
          description: "\(binds ? "bind" : "connect") to \(host):\(port): errno \(errno)")
      }
    }
  }

  deinit { close(fd) }

  /// A loopback TCP port nothing listens on now (bound, read, released).
  public static func freeLoopbackPort() throws -> Int {
    let probe = try loopbackSocket(listening: false)
    close(probe.fd)
    return probe.port
  }

  /// A TCP socket bound to a free loopback port, listening (backlog 8) when `listening`:
  /// the caller closes `fd`.
  public static func loopbackSocket(listening: Bool) throws -> (fd: Int32, port: Int) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw Failure(description: "no socket: errno \(errno)") }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && (!listening || listen(fd, 8) == 0)
          && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else {
      close(fd)
      throw Failure(description: "no free port: errno \(errno)")
    }
    return (fd, Int(UInt16(bigEndian: address.sin_port)))
  }

  /// Sends `bytes` as they are; false when the peer closed.
  @discardableResult
  public func send(_ bytes: [UInt8]) -> Bool {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes[offset...].withUnsafeBytes {
        Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
      }
      if sent <= 0 { return false }
      offset += sent
    }
    return true
  }

  /// Sends `text` as UTF-8.
  @discardableResult
  public func send(_ text: String) -> Bool { send(Array(text.utf8)) }

  /// Reads until the peer closes or the timeout passes; returns what came.
  public func readToEnd() -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      result.append(contentsOf: buffer[0..<count])
    }
    return result
  }

  /// Reads what is there within `seconds` (at least one read), without waiting for the end.
  public func readAvailable(waiting seconds: Double) -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let remaining = Int32(max(1, deadline.timeIntervalSinceNow * 1000))
      guard poll(&poller, 1, remaining) > 0 else { break }
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      result.append(contentsOf: buffer[0..<count])
    }
    return result
  }

  /// One whole response (its body as long as its `Content-Length`) on a connection kept
  /// alive, or nil when none came within `seconds`.
  public func readResponse(within seconds: Double) -> Response? {
    var bytes: [UInt8] = []
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      bytes += readAvailable(waiting: min(0.05, max(0.001, deadline.timeIntervalSinceNow)))
      if let response = Self.parse(bytes),
        response.body.count >= Int(response.headers["content-length"] ?? "") ?? 0
      {
        return response
      }
    }
    return nil
  }

  /// One request on a new connection, read to its end; `Host` is 127.0.0.1:`port` unless
  /// `headers` give one.
  public static func request(
    port: Int, _ method: String, _ path: String, headers: [String: String] = [:],
    body: [UInt8] = [], timeout: Double = 10
  ) throws -> Response {
    let connection = try RawHTTP(port: port, timeout: timeout)
    var head = "\(method) \(path) HTTP/1.1\r\n"
    // A Host among `headers` replaces the default one (a client on another name).
    if !headers.keys.contains(where: { $0.lowercased() == "host" }) {
      head += "Host: 127.0.0.1:\(port)\r\n"
    }
    head += "Connection: close\r\n"
    for (name, value) in headers { head += "\(name): \(value)\r\n" }
    if !body.isEmpty || ["POST", "PUT"].contains(method) {
      head += "Content-Length: \(body.count)\r\n"
    }
    head += "\r\n"
    connection.send(Array(head.utf8) + body)
    guard let response = parse(connection.readToEnd()) else {
      throw Failure(description: "no HTTP response to \(method) \(path)")
    }
    return response
  }

  /// One request with a text body.
  public static func request(
    port: Int, _ method: String, _ path: String, headers: [String: String] = [:], text: String
  ) throws -> Response {
    try request(port: port, method, path, headers: headers, body: Array(text.utf8))
  }

  /// The response in `bytes` (status line, headers, body; a chunked body decoded).
  public static func parse(_ bytes: [UInt8]) -> Response? {
    let separator: [UInt8] = [13, 10, 13, 10]
    guard let end = bytes.firstRange(of: separator) else { return nil }
    let head = String(decoding: bytes[..<end.lowerBound], as: UTF8.self)
    var lines = head.components(separatedBy: "\r\n")
    let statusLine = lines.removeFirst().split(separator: " ")
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
    var headers: [String: String] = [:]
    for line in lines {
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers[line[..<colon].lowercased()] = line[line.index(after: colon)...]
        .trimmingCharacters(in: .whitespaces)
    }
    var body = Array(bytes[end.upperBound...])
    if headers["transfer-encoding"]?.lowercased() == "chunked" { body = dechunk(body) }
    return Response(status: status, headers: headers, body: body)
  }

  /// A chunked body decoded (as far as it is complete).
  public static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
    var result: [UInt8] = []
    var index = 0
    while index < bytes.count {
      guard let lineEnd = bytes[index...].firstRange(of: [13, 10]) else { break }
      let sizeText =
        String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self)
        .split(separator: ";").first ?? ""
      guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size > 0
      else { break }
      let start = lineEnd.upperBound
      let stop = min(bytes.count, start + size)
      result.append(contentsOf: bytes[start..<stop])
      index = stop + 2
    }
    return result
  }
}
