import CMicroHTTPD
import Foundation

/// An HTTP/1.1 server on GNU libmicrohttpd: the one place the service calls its C API.
///
/// libmicrohttpd parses requests, keeps connections alive and enforces the limits of
/// `Limits` (connections in all and per address, idle time, header memory) on a pool of
/// epoll threads; this class adds the header deadline (a connection whose request headers
/// are late is shut down by a sweeper thread), refuses ambiguous framing (RFC 9112 §6.3) and
/// paths that are not UTF-8, and bounds the bodies held at once. A request's body is
/// collected up to `Limits.maximumBodyBytes`; a larger one is answered 413 from its
/// `Content-Length` before any of it is read. `handler` runs on a pool thread once the whole
/// request is in and returns the response, or a `PendingResponse` for which the connection
/// is suspended until it is given; a streamed response (SSE) is sent as its
/// `ResponseStream` fills, the connection suspended while the stream is empty.
final class HTTPServer: @unchecked Sendable {
  /// Bounds on what one client can make the server hold.
  struct Limits: Sendable {
    /// Largest request body, bytes (16 MiB).
    var maximumBodyBytes = 16 << 20
    /// Most connections at once per server thread; more are refused at accept.
    /// libmicrohttpd splits its limit evenly between its threads, and which thread accepts a
    /// connection is the kernel's choice: a limit of 256 in all refused a burst of 300 below
    /// 256 while one thread still had room. 1,024 each, so that 1,000 event streams (issue
    /// 27) fit on two cores with room for the API: with 256 each, clients past the 512th got
    /// no answer at all.
    var maximumConnections = 1_024
    /// A connection idle this long (also mid-request) is closed, seconds.
    var idleTimeoutSeconds = 30
    /// A request's line and headers must be in this many seconds after its connection
    /// opened (a later request on a kept-alive connection: after the previous answer, or the
    /// idle timeout if longer); else the connection is closed. A client sending a byte a
    /// second is never idle, so the idle timeout alone let it hold a slot for ever.
    var headerTimeoutSeconds = 10
    /// Most connections from one client address at once, 0 for no limit.
    var connectionsPerAddress = 0
    /// Request bodies held at once, in all, bytes (64 MiB): a body announced past what is
    /// left is refused 503 from its headers, so that stalled uploads cannot make the server
    /// hold 16 MiB each.
    var bodyBudgetBytes = 64 << 20
    /// Memory per connection for the request line and headers, bytes: a larger header is
    /// refused by libmicrohttpd (431). 32 KiB takes about 16 KB of them (nginx in front
    /// takes 8 KiB a line by default); libmicrohttpd clears it for each request, which at
    /// 64 KiB was 2% of the service's time under single-position phones.
    var headerMemoryBytes = 32 << 10
    /// Threads serving connections: one per core. More only add switches between them (with
    /// 4 on 2 cores, 16 busy connections had a p99 of 3–3.8 ms, with 2 0.6–1.5 ms, at the
    /// same throughput); no request holds one for long, as writes run on their own.
    var threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
    /// How long a server thread whose requests come back to back polls for the next one
    /// before it sleeps (`IdlePoll`, made by the service); zero never polls.
    var idlePoll: Duration = .microseconds(50)
  }

  /// What a handler gives for a request: its response now, or one to come, for which the
  /// connection is suspended (its thread serves the other connections meanwhile).
  enum Answer: Sendable {
    case now(HTTPResponse)
    case later(PendingResponse)

    /// The response, waited for on this thread when it is still to come.
    var response: HTTPResponse {
      switch self {
      case .now(let response): return response
      case .later(let pending): return pending.wait()
      }
    }
  }

  typealias Handler = @Sendable (HTTPRequest) -> Answer
  /// Whether a write never blocks its handler (it answers `.later`): such a write is
  /// answered on the server thread instead of a thread of its own.
  typealias Inline = @Sendable (HTTPRequest) -> Bool
  /// Looks at a request whose body is still to come (its `body` is empty) and returns the
  /// response that refuses it, or nil to read the body.
  typealias Admission = @Sendable (HTTPRequest) -> HTTPResponse?
  /// Told the status of each answer the server gives itself, without the handler (a 413).
  typealias Answered = @Sendable (Int) -> Void

  private var daemon: OpaquePointer?
  private let handler: Handler
  private let inline: Inline
  private let admission: Admission
  private let answered: Answered
  /// Headers added to every response (security policy, CORS).
  private let commonHeaders: [(String, String)]
  let limits: Limits
  /// Keeps a thread awake between the requests of a quick sequential client.
  fileprivate let idlePoll: IdlePoll
  /// The port listened on.
  private(set) var port: UInt16 = 0
  private let lock = NSLock()
  private var streams: [ObjectIdentifier: ResponseStream] = [:]
  /// Writes running on their own threads or answered later, their connections suspended.
  private var offloaded = 0
  /// Answers of writes given but not yet sent (or their connection closed): `stop()`
  /// waits for them, so that a write committed as the stop began is still answered.
  private var writeAnswersUnsent = 0
  /// Set once a stop has begun: a write is then answered 503 where it stands, never
  /// offloaded, and an answer to come is waited for on the server thread, so that no
  /// connection is suspended when libmicrohttpd is stopped.
  private var refusingWrites = false
  /// Body bytes reserved by the requests in progress (at most `Limits.bodyBudgetBytes`).
  private var bodyBytesReserved = 0
  /// The connections whose request headers are still to come: their socket and deadline,
  /// by connection.
  private var headerDeadlines: [UInt: (socket: Int32, deadline: ContinuousClock.Instant)] = [:]
  /// Set by `stop()`: the deadline sweeper ends.
  private var stopped = false

  /// Starts listening on `host`:`port` (an IPv4 or IPv6 address; port 0 picks a free one).
  /// `idlePoll` keeps a thread awake between a quick client's requests. `admission` refuses
  /// a request from its headers before its body is read (so that a client without the token
  /// cannot make the server hold 16 MiB); `handler` answers it, on a thread of its own for a
  /// write unless `inline` says it never blocks. `answered` is told the status of each
  /// answer the server gives without them (a body over the limit).
  /// - Throws: `ServiceError.listen` when the address is not numeric or cannot be bound.
  init(
    host: String, port: UInt16, limits: Limits, commonHeaders: [(String, String)],
    idlePoll: IdlePoll, admission: @escaping Admission = { _ in nil },
    answered: @escaping Answered = { _ in }, inline: @escaping Inline = { _ in false },
    handler: @escaping Handler
  ) throws {
    self.handler = handler
    self.inline = inline
    self.admission = admission
    self.answered = answered
    self.limits = limits
    self.idlePoll = idlePoll
    self.commonHeaders = commonHeaders
    var storage = sockaddr_storage()
    var flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue)
    flags |= UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_TURBO.rawValue)
    let parsed = withUnsafeMutableBytes(of: &storage) { raw -> Bool in
      guard let base = raw.baseAddress else { return false }
      let v4 = base.assumingMemoryBound(to: sockaddr_in.self)
      if inet_pton(AF_INET, host, &v4.pointee.sin_addr) == 1 {
        v4.pointee.sin_family = sa_family_t(AF_INET)
        v4.pointee.sin_port = port.bigEndian
        return true
      }
      let v6 = base.assumingMemoryBound(to: sockaddr_in6.self)
      if inet_pton(AF_INET6, host, &v6.pointee.sin6_addr) == 1 {
        v6.pointee.sin6_family = sa_family_t(AF_INET6)
        v6.pointee.sin6_port = port.bigEndian
        return true
      }
      return false
    }
    guard parsed else {
      throw ServiceError.listen("'\(host)' is not an IPv4 or IPv6 address")
    }
    if storage.ss_family == sa_family_t(AF_INET6) { flags |= UInt32(MHD_USE_IPv6.rawValue) }
    let context = Unmanaged.passUnretained(self).toOpaque()
    daemon = withUnsafePointer(to: &storage) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        missiontrack_mhd_start(
          flags, address, UInt32(limits.threads),
          UInt32(limits.maximumConnections * limits.threads),
          UInt32(limits.connectionsPerAddress), UInt32(limits.idleTimeoutSeconds),
          limits.headerMemoryBytes, accessHandler, context, completedHandler, context,
          unescapeKeepingNUL, uriLogger, context, connectionNotice, context)
      }
    }
    guard let daemon else {
      throw ServiceError.listen(
        "cannot listen on \(host):\(port): \(String(cString: strerror(errno)))")
    }
    self.port = missiontrack_mhd_port(daemon)
    // A thread, not a task: it must run while the pool threads and the engine are busy.
    let sweeper = Thread { [weak self] in
      while let server = self, server.sweepLateHeaders() { usleep(200_000) }
    }
    sweeper.start()
  }

  /// Closes every open stream, ends the offloaded writes (`endWrites`), then stops
  /// listening and closes every connection.
  func stop(interrupt: () -> Void = {}) {
    let open = lock.withLock { Array(streams.values) }
    for stream in open { stream.close() }
    // Streams resumed by their close need a moment to send their end; a bounded wait.
    let deadline = Date().addingTimeInterval(1)
    while lock.withLock({ !streams.isEmpty }) && Date() < deadline { usleep(5_000) }
    // libmicrohttpd must not be stopped with a connection still suspended.
    endWrites(interrupt: interrupt)
    // The answers just given are sent by the server threads; stopping libmicrohttpd would
    // close their connections first (a bounded wait: a client that reads nothing cannot
    // hold the stop).
    let sending = Date().addingTimeInterval(0.5)
    while lock.withLock({ writeAnswersUnsent > 0 }) && Date() < sending { usleep(2_000) }
    // Stopped outside the lock: libmicrohttpd reports each connection's end as it closes
    // them, and those reports take the lock.
    let running = lock.withLock { () -> OpaquePointer? in
      stopped = true
      defer { daemon = nil }
      return daemon
    }
    if let running { MHD_stop_daemon(running) }
  }

  /// Lets each write in progress (its connection suspended; the service refuses new ones
  /// by now) finish and answer within `grace`, then calls `interrupt` again and again until
  /// it has answered (at most 60 s in all): an import of 16 MiB takes seconds, and a stop
  /// must keep within 2 s. Callable from any thread, also while `stop()` runs.
  func endWrites(grace: Duration = .milliseconds(250), interrupt: () -> Void) {
    // From now on no write is offloaded, so once `offloaded` is 0 it stays 0.
    lock.withLock { refusingWrites = true }
    let started = ContinuousClock.now
    while lock.withLock({ offloaded > 0 }) && ContinuousClock.now - started < .seconds(60) {
      // Again and again: an interrupt only stops a statement running at that moment.
      if ContinuousClock.now - started > grace { interrupt() }
      usleep(5_000)
    }
  }

  /// Shuts down each connection whose request headers are past their deadline (its server
  /// thread then sees the end and closes it); false once stopped.
  fileprivate func sweepLateHeaders() -> Bool {
    let now = ContinuousClock.now
    return lock.withLock {
      guard !stopped else { return false }
      // Under the lock: `connectionNotice` removes a connection here before libmicrohttpd
      // closes its socket, so the descriptor shut down is still this connection's.
      for (key, entry) in headerDeadlines where entry.deadline <= now {
        shutdown(entry.socket, Int32(SHUT_RDWR))
        headerDeadlines[key] = nil
      }
      return true
    }
  }

  /// A connection opened (its first request's headers are due) or closed.
  fileprivate func connection(_ connection: OpaquePointer, opened: Bool) {
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    guard opened else {
      lock.withLock { headerDeadlines[key] = nil }
      return
    }
    let socket = missiontrack_mhd_connection_fd(connection)
    let deadline = ContinuousClock.now + .seconds(limits.headerTimeoutSeconds)
    lock.withLock { headerDeadlines[key] = (socket, deadline) }
  }

  /// A request on `connection` was answered: the next one's headers are due within the
  /// header or the idle timeout, whichever is longer (an idle kept-alive connection is the
  /// idle timeout's to close).
  fileprivate func answered(on connection: OpaquePointer, exchange: Exchange) {
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    let wait = max(limits.headerTimeoutSeconds, limits.idleTimeoutSeconds)
    let socket = missiontrack_mhd_connection_fd(connection)
    lock.withLock {
      ended(exchange)
      headerDeadlines[key] = (socket, ContinuousClock.now + .seconds(wait))
    }
  }

  /// A request ended without its answer (the client left, an error): its body's bytes are
  /// free again.
  fileprivate func abandoned(_ exchange: Exchange) {
    lock.withLock { ended(exchange) }
  }

  /// Gives back what `exchange` held (its body's bytes, a write's answer to send); called
  /// under the lock.
  private func ended(_ exchange: Exchange) {
    bodyBytesReserved -= exchange.reserved
    if exchange.isWriteAnswer { writeAnswersUnsent -= 1 }
  }

  /// Reserves `bytes` more of the body budget for `exchange`; false when they do not fit.
  private func reserve(_ bytes: Int, for exchange: Exchange) -> Bool {
    lock.withLock {
      guard bodyBytesReserved + bytes <= limits.bodyBudgetBytes else { return false }
      bodyBytesReserved += bytes
      exchange.reserved += bytes
      return true
    }
  }

  deinit {
    if let daemon { MHD_stop_daemon(daemon) }
  }

  // MARK: - Requests

  /// One request in progress: its path as sent, its body so far, or the response it
  /// already got. Handed to the thread of an offloaded write, which sets `answer` before it
  /// resumes the connection (libmicrohttpd's resume orders the two).
  final class Exchange: @unchecked Sendable {
    /// The path of the request target, still percent-encoded.
    let rawPath: String
    /// Whether the target as sent is UTF-8 (a byte that is not was replaced in `rawPath`).
    let rawPathIsUTF8: Bool
    /// Whether its headers were seen (the access handler's first call).
    var started = false
    /// The headers, collected at the first call.
    fileprivate var headers: HeaderCollector?
    /// The path's decoded segments, from the first call.
    var segments: [String] = []
    var body: [UInt8] = []
    var tooLarge = false
    /// Whether `admission` let it in from its headers (not asked again with the body).
    var admitted = false
    /// Its body did not fit the budget: dropped as it comes, answered 503.
    var overBudget = false
    /// Bytes of the body budget it holds, given back when it ends.
    var reserved = 0
    var stream: ResponseStream?
    /// The response of an offloaded write, for the call after the resume.
    var answer: HTTPResponse?
    /// Whether it is a write's answer that `stop()` waits to be sent.
    var isWriteAnswer = false

    init(rawPath: String, rawPathIsUTF8: Bool = true) {
      self.rawPath = rawPath
      self.rawPathIsUTF8 = rawPathIsUTF8
    }
  }

  fileprivate func handle(
    connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>,
    version: UnsafePointer<CChar>?, upload: UnsafePointer<CChar>?,
    uploadSize: UnsafeMutablePointer<Int>,
    slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
  ) -> MHD_Result {
    if slot.pointee == nil {
      // Not seen by `uriLogger` (libmicrohttpd always calls it first): the decoded path.
      slot.pointee = Unmanaged.passRetained(Exchange(rawPath: String(cString: url))).toOpaque()
    }
    guard let existing = slot.pointee else { return .NO }
    let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
    if !exchange.started {
      // The headers are in; the body (if any) follows in later calls.
      exchange.started = true
      headersArrived(on: connection)
      let collected = headers(connection)
      exchange.headers = collected
      if let refusal = framingRefusal(collected) ?? pathRefusal(exchange) {
        return queue(refusal, on: connection, exchange: exchange)
      }
      let length = collected.contentLengths.first
      // libmicrohttpd accepts lengths up to UInt64.max, past Int.max.
      if let length, let bytes = UInt64(length), bytes > UInt64(limits.maximumBodyBytes) {
        exchange.tooLarge = true
        return queue(tooLargeResponse(), on: connection, exchange: exchange)
      }
      let announced = length.map { $0 != "0" }
      if announced ?? !collected.transferEncodings.isEmpty {
        if let refusal = admission(
          request(connection, exchange, url: url, method: method, version: version))
        {
          return queue(refusal, on: connection, exchange: exchange)
        }
        exchange.admitted = true
        // A chunked body reserves its bytes as they come.
        if let length, let bytes = Int(length), !reserve(bytes, for: exchange) {
          return queue(overBudgetResponse(), on: connection, exchange: exchange)
        }
      }
      return .YES
    }
    if uploadSize.pointee > 0 {
      if !exchange.tooLarge, !exchange.overBudget, let upload {
        let needed = exchange.body.count + uploadSize.pointee - exchange.reserved
        if exchange.body.count + uploadSize.pointee > limits.maximumBodyBytes {
          exchange.tooLarge = true
          exchange.body = []
        } else if needed > 0, !reserve(needed, for: exchange) {
          exchange.overBudget = true
          exchange.body = []
        } else {
          upload.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
            exchange.body.append(
              contentsOf: UnsafeBufferPointer(start: $0, count: uploadSize.pointee))
          }
        }
      }
      uploadSize.pointee = 0
      return .YES
    }
    if let answer = exchange.answer {
      // The offloaded write is done and resumed the connection.
      exchange.answer = nil
      return queue(answer, on: connection, exchange: exchange)
    }
    if exchange.tooLarge { return queue(tooLargeResponse(), on: connection, exchange: exchange) }
    if exchange.overBudget {
      return queue(overBudgetResponse(), on: connection, exchange: exchange)
    }
    let request = request(connection, exchange, url: url, method: method, version: version)
    exchange.body = []
    if request.isRead || inline(request) {
      switch handler(request) {
      case .now(let response): return queue(response, on: connection, exchange: exchange)
      case .later(let pending): return suspend(connection, exchange, until: pending)
      }
    }
    // A write may take seconds (an import of 16 MiB, a wait for the engine): it runs on a
    // thread of its own while the connection is suspended, so that the other connections
    // this server thread serves are answered meanwhile.
    let offloading = lock.withLock { () -> Bool in
      guard !refusingWrites else { return false }
      offloaded += 1
      return true
    }
    guard offloading else {
      answered(503)
      return queue(
        ServiceError.unavailable("the service is shutting down").response, on: connection,
        exchange: exchange)
    }
    MHD_suspend_connection(connection)
    let suspended = SuspendedConnection(connection: connection)
    // A thread, not a Dispatch queue: a write may block on the engine's actor, and blocked
    // Dispatch workers (as many as cores) starve the tasks they wait for.
    let worker = Thread { [handler] in
      exchange.answer = handler(request).response
      self.writeAnswered(exchange)
      MHD_resume_connection(suspended.connection)
    }
    worker.start()
    return .YES
  }

  /// Suspends `connection` until `pending` is given, then queues it: the server thread
  /// serves its other connections meanwhile (an ingest request waits for the engine and a
  /// commit with many others). Once a stop has begun, waits for it here instead.
  private func suspend(
    _ connection: OpaquePointer, _ exchange: Exchange, until pending: PendingResponse
  ) -> MHD_Result {
    let suspending = lock.withLock { () -> Bool in
      guard !refusingWrites else { return false }
      offloaded += 1
      return true
    }
    guard suspending else {
      let response = pending.wait()
      writeAnswered(exchange, offloaded: false)
      return queue(response, on: connection, exchange: exchange)
    }
    MHD_suspend_connection(connection)
    let suspended = SuspendedConnection(connection: connection)
    // Called on the thread that gives the response (or here, when it is given already):
    // the answer is set before the resume, which orders it before the next call.
    pending.whenReady { response in
      exchange.answer = response
      self.writeAnswered(exchange)
      MHD_resume_connection(suspended.connection)
    }
    return .YES
  }

  /// The write of `exchange` has its answer, not sent yet (`stop()` waits for it); when it
  /// was `offloaded`, it is no longer running. Called before its connection is resumed,
  /// which may end the exchange at once.
  private func writeAnswered(_ exchange: Exchange, offloaded wasOffloaded: Bool = true) {
    lock.withLock {
      if wasOffloaded { offloaded -= 1 }
      writeAnswersUnsent += 1
      exchange.isWriteAnswer = true
    }
  }

  private func request(
    _ connection: OpaquePointer, _ exchange: Exchange, url: UnsafePointer<CChar>,
    method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?
  ) -> HTTPRequest {
    let collected = exchange.headers ?? HeaderCollector()
    return HTTPRequest(
      method: String(cString: method), version: version.map { String(cString: $0) } ?? "",
      path: String(cString: url), segments: exchange.segments,
      query: queryItems(connection), headers: collected.found,
      hostLines: collected.hostLines, spacedHeaderName: collected.spacedName,
      body: exchange.body, admitted: exchange.admitted)
  }

  /// The segments of a path as sent (split at each `/`, the first empty), each decoded as
  /// libmicrohttpd decodes the whole path: so `%2F` inside a segment is part of it (a
  /// mission id with `/` can be named), where the decoded path would split there. Nil when
  /// a decoded segment is not UTF-8: replacing its bytes with U+FFFD would make different
  /// paths name one mission.
  static func segments(of rawPath: String) -> [String]? {
    var segments: [String] = []
    segments.reserveCapacity(8)
    // Split byte by byte: a split of the `String` breaks it into characters first. A `/`
    // is never inside a character, so each segment of valid UTF-8 is valid UTF-8.
    let path = rawPath.utf8
    var start = path.startIndex
    while true {
      let end = path[start...].firstIndex(of: UInt8(ascii: "/")) ?? path.endIndex
      let bytes = path[start..<end]
      let segment = String(decoding: bytes, as: UTF8.self)
      // Only an escape changes a segment (most have none). Looked for byte by byte:
      // `contains("%")` is Foundation's substring search, 2% of a server thread's time.
      if bytes.contains(UInt8(ascii: "%")) {
        var text = Array(segment.utf8CString)
        let count = text.withUnsafeMutableBufferPointer {
          unescapeKeepingNUL(context: nil, connection: nil, text: $0.baseAddress)
        }
        let decoded = text.prefix(count).map { UInt8(bitPattern: $0) }
        guard let decoded = String(validating: decoded, as: UTF8.self) else { return nil }
        segments.append(decoded)
      } else {
        segments.append(segment)
      }
      guard end < path.endIndex else { return segments }
      start = path.index(after: end)
    }
  }

  /// The 400 for a request whose framing is ambiguous (RFC 9112 §6.3), which could smuggle a
  /// second request in its body on a kept-alive connection: differing `Content-Length`
  /// values, `Transfer-Encoding` beside `Content-Length`, a transfer coding but `chunked`.
  /// It closes the connection, whose next bytes cannot be told apart from the body.
  private func framingRefusal(_ headers: HeaderCollector) -> HTTPResponse? {
    let message: String
    let encodings = headers.transferEncodings
    if Set(headers.contentLengths).count > 1 {
      message = "the request has differing Content-Length values"
    } else if !encodings.isEmpty && !headers.contentLengths.isEmpty {
      message = "the request has both Transfer-Encoding and Content-Length"
    } else if !encodings.isEmpty
      && (encodings.count > 1
        || encodings[0].trimmingCharacters(in: .whitespaces).lowercased() != "chunked")
    {
      message = "the only Transfer-Encoding of a request taken is chunked"
    } else {
      return nil
    }
    answered(400)
    var response = ServiceError.badRequest(message).response
    response.headers.append((name: "Connection", value: "close"))
    return response
  }

  /// The 400 for a path that is not UTF-8, as sent or once decoded; else the exchange
  /// gets its segments.
  private func pathRefusal(_ exchange: Exchange) -> HTTPResponse? {
    if exchange.rawPathIsUTF8, let segments = Self.segments(of: exchange.rawPath) {
      exchange.segments = segments
      return nil
    }
    answered(400)
    return ServiceError.badRequest("the path is not UTF-8 (as sent or percent-decoded)").response
  }

  /// The 503 for a body that does not fit what is left of the body budget, told to
  /// `answered` as it is made.
  private func overBudgetResponse() -> HTTPResponse {
    answered(503)
    var response = ServiceError.unavailable(
      "the server holds \(limits.bodyBudgetBytes >> 20) MiB of request bodies already; "
        + "retry later"
    ).response
    response.headers.append((name: "Retry-After", value: "5"))
    return response
  }

  /// The headers of a request on `connection` are in: no deadline until its answer.
  private func headersArrived(on connection: OpaquePointer) {
    let key = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(connection)))
    lock.withLock { headerDeadlines[key] = nil }
  }

  /// The 413 for a body over the limit, told to `answered` as it is made.
  private func tooLargeResponse() -> HTTPResponse {
    answered(413)
    return ServiceError.tooLarge(
      "the body is larger than \(limits.maximumBodyBytes) bytes (16 MiB)"
    ).response
  }

  private func queue(_ response: HTTPResponse, on connection: OpaquePointer, exchange: Exchange)
    -> MHD_Result
  {
    let mhdResponse: OpaquePointer?
    switch response.body {
    case .bytes(let bytes):
      mhdResponse = bytes.withUnsafeBytes { raw in
        MHD_create_response_from_buffer(
          raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
      }
    case .stream(let stream):
      let box = StreamContext(server: self, stream: stream, connection: connection)
      lock.withLock { streams[ObjectIdentifier(stream)] = stream }
      exchange.stream = stream
      mhdResponse = MHD_create_response_from_callback(
        UInt64.max, 16 << 10, streamReader, Unmanaged.passRetained(box).toOpaque(),
        streamFinished)
    }
    guard let mhdResponse else { return .NO }
    for (name, value) in commonHeaders { _ = MHD_add_response_header(mhdResponse, name, value) }
    for header in response.headers {
      _ = MHD_add_response_header(mhdResponse, header.name, header.value)
    }
    let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    MHD_destroy_response(mhdResponse)
    return result
  }

  fileprivate func streamEnded(_ stream: ResponseStream) {
    stream.close()
    lock.withLock { _ = streams.removeValue(forKey: ObjectIdentifier(stream)) }
  }

  /// What one pass over a request's headers collects.
  fileprivate final class HeaderCollector {
    /// The headers of `HTTPRequest.headerNames` the request has, the first of a repeated
    /// name.
    var found: [String: String] = [:]
    /// How many `Host` lines it has.
    var hostLines = 0
    /// The first name sent with whitespace before its colon (libmicrohttpd keeps it).
    var spacedName: String?
    /// The value of each `Content-Length` line, in order.
    var contentLengths: [String] = []
    /// The value of each `Transfer-Encoding` line, in order.
    var transferEncodings: [String] = []
  }

  /// The headers of `HTTPRequest.headerNames` that the request has, how many `Host` lines
  /// it sent and its first name with whitespace before the colon, in one pass over them.
  /// The routes read no other header, so the rest are neither copied nor lower-cased:
  /// collecting every header into a dictionary cost each request an allocation and a
  /// lower-cased copy per header.
  private func headers(_ connection: OpaquePointer) -> HeaderCollector {
    let collector = HeaderCollector()
    _ = withExtendedLifetime(collector) {
      MHD_get_connection_values_n(
        connection, .HEADER_KIND,
        { context, _, key, keySize, value, valueSize in
          guard let context, let key else { return .YES }
          let collector = Unmanaged<HeaderCollector>.fromOpaque(context).takeUnretainedValue()
          let sent = UnsafeRawBufferPointer(start: key, count: keySize)
          if collector.spacedName == nil, let last = sent.last, last == 0x20 || last == 0x09 {
            collector.spacedName = String(decoding: sent, as: UTF8.self)
          }
          // The framing headers, looked for by their lengths first (most names are neither).
          if sent.count == 14 || sent.count == 17 {
            let name = String(decoding: sent, as: UTF8.self).lowercased()
            let text = String(
              decoding: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize),
              as: UTF8.self)
            if name == "content-length" { collector.contentLengths.append(text) }
            if name == "transfer-encoding" { collector.transferEncodings.append(text) }
          }
          guard let name = HTTPRequest.headerName(sent) else { return .YES }
          if name == "host" { collector.hostLines += 1 }
          if collector.found[name] == nil {
            collector.found[name] = String(
              decoding: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize),
              as: UTF8.self)
          }
          return .YES
        }, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector
  }

  /// The query arguments of `connection`, decoded, in order.
  private func queryItems(_ connection: OpaquePointer) -> QueryItems {
    final class Collector {
      var items = QueryItems()
    }
    let collector = Collector()
    _ = withExtendedLifetime(collector) {
      MHD_get_connection_values(
        connection, .GET_ARGUMENT_KIND,
        { context, _, key, value in
          guard let context, let key else { return .YES }
          let collector = Unmanaged<Collector>.fromOpaque(context).takeUnretainedValue()
          collector.items.append(String(cString: key), value.map { String(cString: $0) } ?? "")
          return .YES
        }, Unmanaged.passUnretained(collector).toOpaque())
    }
    return collector.items
  }
}

/// A suspended connection, for the thread of its offloaded write or of its answer to come
/// (the pointer is used only to resume it, which libmicrohttpd allows from any thread).
private struct SuspendedConnection: @unchecked Sendable {
  let connection: OpaquePointer
}

/// What the content reader of a streamed response needs.
private final class StreamContext {
  let server: HTTPServer
  let stream: ResponseStream
  let connection: OpaquePointer

  init(server: HTTPServer, stream: ResponseStream, connection: OpaquePointer) {
    self.server = server
    self.stream = stream
    self.connection = connection
  }
}

private func accessHandler(
  context: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
  method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
  upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>?,
  slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
  guard let context, let connection, let url, let method, let uploadSize, let slot else {
    return .NO
  }
  let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
  return server.handle(
    connection: connection, url: url, method: method, version: version, upload: upload,
    uploadSize: uploadSize, slot: slot)
}

private func completedHandler(
  context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
  slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, reason: MHD_RequestTerminationCode
) {
  guard let slot, let opaque = slot.pointee, let context else { return }
  slot.pointee = nil
  let exchange = Unmanaged<HTTPServer.Exchange>.fromOpaque(opaque).takeRetainedValue()
  let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
  guard reason == .REQUEST_TERMINATED_COMPLETED_OK, let connection else {
    server.abandoned(exchange)
    return
  }
  server.answered(on: connection, exchange: exchange)
  if let thread = missiontrack_mhd_connection_daemon(connection) {
    server.idlePoll.answered(
      epollDescriptor: missiontrack_mhd_epoll_fd(thread),
      alone: missiontrack_mhd_connection_count(thread) == 1)
  }
}

/// Tells the server of each connection's start and end (libmicrohttpd reports the end
/// before it closes the socket).
private func connectionNotice(
  context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
  socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
  code: MHD_ConnectionNotificationCode
) {
  guard let context, let connection else { return }
  Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().connection(
    connection, opened: code == .CONNECTION_NOTIFY_STARTED)
}

/// Starts each request's exchange with the path of its target as sent: libmicrohttpd calls
/// this before it decodes anything (and then always reports the request's completion).
private func uriLogger(
  context: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
  if let context {
    Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().idlePoll.requestStarted()
  }
  // Up to the query, byte by byte (a Character walk would segment the whole target).
  let target = UnsafeRawBufferPointer(start: uri, count: uri.map { strlen($0) } ?? 0)
  let bytes = target.prefix { $0 != UInt8(ascii: "?") }
  let path = String(validating: bytes, as: UTF8.self)
  return Unmanaged.passRetained(
    HTTPServer.Exchange(
      rawPath: path ?? String(decoding: bytes, as: UTF8.self), rawPathIsUTF8: path != nil)
  ).toOpaque()
}

/// Percent-decodes `text` in place as libmicrohttpd's own unescaper does (an invalid escape
/// stays as it is), except that `%00` is kept too: a decoded NUL would end the C string and
/// cut the path or a query value short, so `/v1/missions/ID%00x` would reach mission `ID`.
/// Returns the decoded length.
private func unescapeKeepingNUL(
  context: UnsafeMutableRawPointer?, connection: OpaquePointer?,
  text: UnsafeMutablePointer<CChar>?
) -> Int {
  guard let text else { return 0 }
  func hexValue(_ character: CChar) -> UInt8? {
    let byte = UInt8(bitPattern: character)
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }
  var read = 0
  var written = 0
  while text[read] != 0 {
    // `high` is nil at the terminator, so `text[read + 2]` is never past it.
    if text[read] == CChar(UInt8(ascii: "%")), let high = hexValue(text[read + 1]),
      let low = hexValue(text[read + 2]), high != 0 || low != 0
    {
      text[written] = CChar(bitPattern: high << 4 | low)
      read += 3
    } else {
      text[written] = text[read]
      read += 1
    }
    written += 1
  }
  text[written] = 0
  return written
}

private func streamReader(
  context: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?,
  maximum: Int
) -> Int {
  guard let context, let buffer else { return -2 }
  let box = Unmanaged<StreamContext>.fromOpaque(context).takeUnretainedValue()
  let connection = box.connection
  let read = box.stream.read(
    into: UnsafeMutableRawBufferPointer(start: buffer, count: maximum),
    suspend: { MHD_suspend_connection(connection) },
    wake: { MHD_resume_connection(connection) })
  switch read {
  case .bytes(let count): return count
  case .waiting: return 0
  case .end: return -1
  }
}

private func streamFinished(context: UnsafeMutableRawPointer?) {
  guard let context else { return }
  let box = Unmanaged<StreamContext>.fromOpaque(context).takeRetainedValue()
  box.server.streamEnded(box.stream)
}
