import Foundation
import ServiceTestSupport

/// Many Server-Sent Events clients of one `serve` at once, for the fan-out test: `readers`
/// that read everything on non-blocking sockets, served by one thread with `poll(2)` (not a
/// thread each), and `stalled` ones that send their request and never read (a small
/// receive buffer, so the server's queue for them fills soon).
///
/// Each reader keeps only its status, its body's length and a hash of it; the first one
/// also keeps its body, which the test parses: readers with the same length and hash got
/// the same bytes as it, so each got every event it got, in the same order.
final class SSEFanOutClients: @unchecked Sendable {
  /// What one reader received.
  struct Received {
    /// The status line and headers, up to the blank line.
    var head: [UInt8] = []
    var headDone = false
    /// The body's length so far.
    var bodyBytes = 0
    var hasher = Hasher()
    /// Whether the server ended the stream.
    var ended = false

    /// The HTTP status, once the head is in.
    var status: Int? {
      guard headDone else { return nil }
      let line = String(decoding: head.prefix { $0 != 13 }, as: UTF8.self)
      return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }

    /// The hash of the body so far.
    var bodyHash: Int {
      hasher.finalize()
    }
  }

  private let readerSockets: [Int32]
  private let stalledSockets: [Int32]
  private let lock = NSLock()
  private var received: [Received]
  private var firstBody: [UInt8] = []
  private var stopping = false
  private var thread: Thread?

  /// Connects `readers` clients to `GET PATH` and `stalled` ones to `GET STALLEDPATH`
  /// (HTTP/1.0, so the body is not chunked) on 127.0.0.1:`port` and starts reading.
  /// - Throws: `RawHTTP.Failure` when a connection cannot be made.
  init(port: Int, path: String, readers: Int, stalledPath: String, stalled: Int) throws {
    var made: [Int32] = []
    func connect(_ path: String, receiveBuffer: Int32?) throws -> Int32 {
      let request = Array(
        "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".utf8)
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard fd >= 0 else {
        for open in made { Foundation.close(open) }
        throw RawHTTP.Failure(description: "socket: errno \(errno) after \(made.count)")
      }
      made.append(fd)
      if var size = receiveBuffer {
        // Before connect, so the window the server sees is small from the start.
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = UInt16(port).bigEndian
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
      }
      let sent = request.withUnsafeBytes {
        send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) == $0.count
      }
      guard connected && sent else {
        for open in made { Foundation.close(open) }
        throw RawHTTP.Failure(description: "connect to \(port): errno \(errno) after \(made.count)")
      }
      return fd
    }
    readerSockets = try (0..<readers).map { _ in
      let fd = try connect(path, receiveBuffer: nil)
      _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      return fd
    }
    stalledSockets = try (0..<stalled).map { _ in try connect(stalledPath, receiveBuffer: 4096) }
    received = Array(repeating: Received(), count: readers)
    let reader = Thread { [weak self] in self?.readLoop() }
    thread = reader
    reader.start()
  }

  deinit {
    close()
    for fd in readerSockets + stalledSockets { Foundation.close(fd) }
  }

  /// What each reader received so far.
  var readers: [Received] { lock.withLock { received } }

  /// The first reader's body so far.
  var firstReaderBody: [UInt8] { lock.withLock { firstBody } }

  /// Stops reading (the sockets stay open until release).
  func close() { lock.withLock { stopping = true } }

  private func readLoop() {
    var polled = readerSockets.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while !lock.withLock({ stopping }) {
      guard poll(&polled, nfds_t(polled.count), 50) > 0 else { continue }
      for index in polled.indices where polled[index].revents != 0 {
        // Read what is there now (bounded, so one busy client cannot starve the others).
        for _ in 0..<8 {
          let count = buffer.withUnsafeMutableBytes {
            recv(polled[index].fd, $0.baseAddress, $0.count, 0)
          }
          if count < 0 { break }
          if count == 0 {
            lock.withLock { received[index].ended = true }
            // No longer polled: an ended stream would report POLLIN for ever.
            polled[index].fd = -1
            break
          }
          take(buffer[0..<count], reader: index)
          if count < buffer.count { break }
        }
      }
    }
  }

  private func take(_ bytes: ArraySlice<UInt8>, reader index: Int) {
    lock.withLock {
      var body = bytes
      if !received[index].headDone {
        received[index].head.append(contentsOf: bytes)
        guard let end = received[index].head.firstRange(of: [13, 10, 13, 10]) else { return }
        body = received[index].head[end.upperBound...]
        received[index].head.removeSubrange(end.upperBound...)
        received[index].headDone = true
      }
      received[index].bodyBytes += body.count
      body.withUnsafeBytes { received[index].hasher.combine(bytes: $0) }
      if index == 0 { firstBody.append(contentsOf: body) }
    }
  }
}
