import Foundation

/// A Server-Sent Events client for tests: `GET PATH` over HTTP/1.0 on a raw loopback
/// socket (so the stream is not chunked), read on its own thread and parsed into events.
public final class SSEClient: @unchecked Sendable {
  /// One event as sent.
  public struct Event: Sendable, Equatable {
    public var id: Int64?
    public var type: String
    public var data: String
  }

  private let connection: RawHTTP
  private let lock = NSLock()
  private var received: [Event] = []
  private var headText = ""
  private var ended = false
  private var comments = 0
  private var thread: Thread?

  /// Connects and sends the request (with `Last-Event-ID` when given).
  public init(
    port: Int, path: String = "/v1/events", lastEventID: Int64? = nil, token: String? = nil
  )
    throws
  {
    connection = try RawHTTP(port: port, timeout: 1)
    var request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
    if let lastEventID { request += "Last-Event-ID: \(lastEventID)\r\n" }
    if let token { request += "Authorization: Bearer \(token)\r\n" }
    connection.send(request + "\r\n")
    let reader = Thread { [weak self] in self?.readLoop() }
    thread = reader
    reader.start()
  }

  deinit { close() }

  /// The events received so far.
  public var events: [Event] { lock.withLock { received } }

  /// `: keepalive` (and other) comments received so far.
  public var commentCount: Int { lock.withLock { comments } }

  /// Whether the server ended the stream.
  public var isEnded: Bool { lock.withLock { ended } }

  /// The status line and headers.
  public var head: String { lock.withLock { headText } }

  /// Waits up to `timeout` seconds for `condition` on the events; returns whether it held.
  /// Sleeps with `Task.sleep`, so a long wait never holds one of the few threads the whole
  /// test run shares.
  public func wait(timeout: Double, until condition: ([Event]) -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if condition(events) { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return condition(events)
  }

  /// Waits up to `timeout` seconds for the response's head; returns whether it came. The
  /// server subscribes a stream before it answers, so from the head on the stream misses no
  /// event: wait for this, not for a fixed time, before making the events a live stream
  /// (one without `after=`) must carry. The default only guards against a hang.
  public func waitUntilSubscribed(timeout: Double = 60) async -> Bool {
    await wait(timeout: timeout) { _ in !head.isEmpty }
  }

  /// Closes the connection (the reader thread ends).
  public func close() {
    lock.withLock { ended = true }
    shutdown(connection.fd, Int32(SHUT_RDWR))
  }

  private func readLoop() {
    var buffer: [UInt8] = []
    var inHead = true
    var chunk = [UInt8](repeating: 0, count: 65536)
    while !lock.withLock({ ended }) {
      let count = chunk.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
      if count == 0 { break }
      if count < 0 {
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { continue }
        break
      }
      buffer.append(contentsOf: chunk[0..<count])
      if inHead, let end = buffer.firstRange(of: [13, 10, 13, 10]) {
        let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        lock.withLock { headText = head }
        buffer.removeSubrange(..<end.upperBound)
        inHead = false
      }
      if inHead { continue }
      while let end = buffer.firstRange(of: [10, 10]) {
        let block = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<end.upperBound)
        parse(block)
      }
    }
    lock.withLock { ended = true }
  }

  private func parse(_ block: String) {
    var id: Int64?
    var type = "message"
    var data: [String] = []
    var comment = false
    for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix(":") { comment = true }
      if line.hasPrefix("id: ") { id = Int64(line.dropFirst(4)) }
      if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
      if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
    }
    lock.withLock {
      if data.isEmpty {
        if comment { comments += 1 }
        return
      }
      received.append(Event(id: id, type: type, data: data.joined(separator: "\n")))
    }
  }
}
