import CCurl
import Foundation
import Synchronization

/// An HTTP client for webhook deliveries on libcurl: the one file of this package that calls
/// libcurl, so no libcurl type appears anywhere else.
///
/// Transfers run on the client's own thread, which drives one curl multi handle: the Swift
/// cooperative pool never waits on the network, and an `await post(…)` resumes when its
/// transfer ends. The multi handle keeps a connection cache, so deliveries to one receiver
/// reuse kept-alive connections (HTTP/1.1, or HTTP/2 over HTTPS when the receiver offers
/// it); up to `maximumConnectionsPerHost` transfers to one host run at once, the others wait
/// in libcurl's queue. HTTPS uses the system's CA store (`caFile` for another one). Redirects
/// are not followed.
///
/// Call `shutdown()` when done: the transfer thread keeps the client alive until then.
///
/// `@unchecked Sendable`: the only state touched from several threads is `inbox`, behind a
/// `Mutex`; everything else belongs to the transfer thread.
package final class HTTPClient: @unchecked Sendable {
  /// How the client connects.
  package struct Configuration: Sendable {
    /// The longest a whole attempt may take (connect, send, answer), seconds.
    package var timeoutSeconds: Double = 10
    /// The longest the connection (and TLS handshake) may take, seconds.
    package var connectTimeoutSeconds: Double = 5
    /// Connections to one host at once.
    package var maximumConnectionsPerHost = 16
    /// A PEM file of CA certificates to trust instead of the system's, or nil.
    package var caFile: String?
    /// The `User-Agent` sent.
    package var userAgent = "MissionTrack-Webhooks/1"

    /// The defaults: 10 s in all, 5 s to connect, 16 connections per host.
    package init() {}
  }

  /// One transfer: what the callbacks write into, kept alive until it ends.
  ///
  /// `@unchecked Sendable`: the calling task makes it and hands it over through `inbox`;
  /// from then on only the transfer thread (and libcurl's callbacks on it) touch it.
  private final class Transfer: @unchecked Sendable {
    let url: String
    let body: [UInt8]
    let continuation: CheckedContinuation<Result<HTTPResponse, HTTPTransportError>, Never>
    var headerList: UnsafeMutablePointer<curl_slist>?
    var retryAfter: String?
    let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    var easy: UnsafeMutableRawPointer?

    init(
      url: String, body: [UInt8],
      continuation: CheckedContinuation<Result<HTTPResponse, HTTPTransportError>, Never>
    ) {
      self.url = url
      self.body = body
      self.continuation = continuation
      errorBuffer[0] = 0
    }

    deinit {
      curl_slist_free_all(headerList)
      errorBuffer.deallocate()
    }
  }

  /// Requests handed to the transfer thread, and whether the client is shutting down.
  private struct Inbox {
    var requests: [(Transfer, [(name: String, value: String)])] = []
    var shuttingDown = false
  }

  private let configuration: Configuration
  private let multi: UnsafeMutableRawPointer
  private let inbox = Mutex(Inbox())
  private let stopped = DispatchSemaphore(value: 0)
  /// Transfer-thread state: transfers running, by their easy handle, and idle handles.
  private var running: [UnsafeMutableRawPointer: Transfer] = [:]
  private var idleHandles: [UnsafeMutableRawPointer] = []

  /// libcurl's global setup, done once before the first handle (it is not thread-safe).
  private static let globalSetup: CURLcode = missiontrack_curl_global_init()

  /// Starts a client and its transfer thread.
  /// - Throws: `DeliveryError.http` when libcurl cannot be set up.
  package init(configuration: Configuration = Configuration()) throws(DeliveryError) {
    guard Self.globalSetup == CURLE_OK else {
      throw .http(
        "libcurl's global init failed: \(String(cString: curl_easy_strerror(Self.globalSetup)))")
    }
    guard let multi = curl_multi_init() else { throw .http("curl_multi_init failed") }
    self.configuration = configuration
    self.multi = multi
    _ = missiontrack_curl_multi_set_long(
      multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(1, configuration.maximumConnectionsPerHost))
    _ = missiontrack_curl_multi_set_long(
      multi, CURLMOPT_MAXCONNECTS, 4 * max(1, configuration.maximumConnectionsPerHost))
    let thread = Thread { [self] in runTransfers() }
    thread.name = "missiontrack-http"
    thread.start()
  }

  deinit {
    curl_multi_cleanup(multi)
  }

  /// POSTs `body` with `headers` to `url` and returns the answer's status and `Retry-After`,
  /// or the transport failure (refused, DNS, TLS, timeout) as one line.
  ///
  /// The transfer runs on the client's thread; the caller's task is suspended meanwhile. A
  /// cancelled task still waits for its transfer, which ends by the timeout at the latest.
  package func post(url: String, headers: [(name: String, value: String)], body: [UInt8]) async
    -> Result<HTTPResponse, HTTPTransportError>
  {
    await withCheckedContinuation { continuation in
      let transfer = Transfer(url: url, body: body, continuation: continuation)
      let accepted = inbox.withLock { inbox -> Bool in
        guard !inbox.shuttingDown else { return false }
        inbox.requests.append((transfer, headers))
        return true
      }
      if accepted {
        curl_multi_wakeup(multi)
      } else {
        continuation.resume(
          returning: .failure(
            HTTPTransportError(kind: .other, message: "POST \(url): the HTTP client is shut down")))
      }
    }
  }

  /// Stops the transfer thread: transfers still running end with an error. Waits for the
  /// thread; call it once, before the client is released.
  package func shutdown() {
    let first = inbox.withLock { inbox -> Bool in
      defer { inbox.shuttingDown = true }
      return !inbox.shuttingDown
    }
    guard first else { return }
    curl_multi_wakeup(multi)
    stopped.wait()
  }

  // MARK: The transfer thread

  private func runTransfers() {
    while true {
      let (requests, shuttingDown) = inbox.withLock { inbox in
        defer { inbox.requests.removeAll() }
        return (inbox.requests, inbox.shuttingDown)
      }
      for (transfer, headers) in requests { start(transfer, headers: headers) }
      if shuttingDown { break }
      var active: Int32 = 0
      _ = curl_multi_perform(multi, &active)
      collectFinished()
      var ready: Int32 = 0
      _ = curl_multi_poll(multi, nil, 0, 1_000, &ready)
    }
    for transfer in Array(running.values) {
      finish(
        transfer,
        result: .failure(
          HTTPTransportError(
            kind: .other, message: "POST \(transfer.url): the HTTP client was shut down")))
    }
    for handle in idleHandles { curl_easy_cleanup(handle) }
    idleHandles.removeAll()
    stopped.signal()
  }

  /// Sets up an easy handle (reused when one is idle) for `transfer` and adds it.
  private func start(_ transfer: Transfer, headers: [(name: String, value: String)]) {
    guard let easy = idleHandles.popLast() ?? curl_easy_init() else {
      transfer.continuation.resume(
        returning: .failure(
          HTTPTransportError(kind: .other, message: "POST \(transfer.url): curl_easy_init failed")))
      return
    }
    curl_easy_reset(easy)
    transfer.easy = easy
    // "Expect:" turns off curl's `Expect: 100-continue`, which would wait for an interim
    // answer many receivers never send.
    for line in headers.map({ "\($0.name): \($0.value)" }) + ["Expect:"] {
      transfer.headerList = curl_slist_append(transfer.headerList, line)
    }
    let context = Unmanaged.passUnretained(transfer).toOpaque()
    _ = missiontrack_curl_set_string(easy, CURLOPT_URL, transfer.url)
    _ = missiontrack_curl_set_long(easy, CURLOPT_POST, 1)
    // The size first: COPYPOSTFIELDS copies that many bytes (a body may hold a NUL).
    _ = missiontrack_curl_set_size(
      easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(transfer.body.count))
    _ = missiontrack_curl_set_pointer(easy, CURLOPT_COPYPOSTFIELDS, transfer.body)
    _ = missiontrack_curl_set_pointer(easy, CURLOPT_HTTPHEADER, transfer.headerList)
    _ = missiontrack_curl_set_string(easy, CURLOPT_USERAGENT, configuration.userAgent)
    _ = missiontrack_curl_set_long(
      easy, CURLOPT_TIMEOUT_MS, milliseconds(configuration.timeoutSeconds))
    _ = missiontrack_curl_set_long(
      easy, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(configuration.connectTimeoutSeconds))
    _ = missiontrack_curl_set_long(easy, CURLOPT_NOSIGNAL, 1)
    _ = missiontrack_curl_set_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
    _ = missiontrack_curl_set_long(easy, CURLOPT_FOLLOWLOCATION, 0)
    if let caFile = configuration.caFile {
      _ = missiontrack_curl_set_string(easy, CURLOPT_CAINFO, caFile)
    }
    _ = missiontrack_curl_set_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
    _ = missiontrack_curl_set_pointer(easy, CURLOPT_PRIVATE, context)
    _ = missiontrack_curl_set_callback(easy, CURLOPT_WRITEFUNCTION) { _, size, count, _ in
      size * count  // the answer's body is not used
    }
    _ = missiontrack_curl_set_pointer(easy, CURLOPT_HEADERDATA, context)
    _ = missiontrack_curl_set_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, context in
      guard let data, let context else { return size * count }
      let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
      let line = String(
        decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
      if line.hasPrefix("HTTP/") {
        transfer.retryAfter = nil  // a new answer (after a 100 Continue) starts
      } else if line.lowercased().hasPrefix("retry-after:") {
        transfer.retryAfter = line.dropFirst("retry-after:".count)
          .trimmingCharacters(in: .whitespacesAndNewlines)
      }
      return size * count
    }
    running[easy] = transfer
    let added = curl_multi_add_handle(multi, easy)
    if added != CURLM_OK {
      finish(
        transfer,
        result: .failure(
          HTTPTransportError(
            kind: .other,
            message: "POST \(transfer.url): \(String(cString: curl_multi_strerror(added)))")))
    }
  }

  /// Ends every transfer libcurl reports done.
  private func collectFinished() {
    var left: Int32 = 0
    while let message = curl_multi_info_read(multi, &left) {
      guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
        let transfer = running[easy]
      else { continue }
      let code = message.pointee.data.result
      if code == CURLE_OK {
        let status = Int(missiontrack_curl_response_code(easy))
        finish(
          transfer,
          result: .success(
            HTTPResponse(
              status: status, retryAfterSeconds: transfer.retryAfter.flatMap(seconds(retryAfter:))))
        )
      } else {
        finish(transfer, result: .failure(transportError(code, transfer, easy: easy)))
      }
    }
  }

  /// Hands the result over and returns the handle to the idle pool (its connection stays in
  /// the multi handle's cache).
  private func finish(_ transfer: Transfer, result: Result<HTTPResponse, HTTPTransportError>) {
    if let easy = transfer.easy {
      curl_multi_remove_handle(multi, easy)
      running[easy] = nil
      idleHandles.append(easy)
    }
    transfer.continuation.resume(returning: result)
  }

  /// A `Retry-After` value in seconds: a delay as sent, or an HTTP date (libcurl's
  /// `curl_getdate` reads RFC 7231's three date forms) turned into the seconds until it.
  private func seconds(retryAfter value: String) -> Double? {
    if let delay = Int(value), delay >= 0 { return Double(delay) }
    let date = curl_getdate(value, nil)
    guard date >= 0 else { return nil }
    return max(0, Double(date) - Date().timeIntervalSince1970)
  }

  /// The failure for libcurl's `code`, one line with the URL and libcurl's explanation (and
  /// the system's, for a failed connect).
  private func transportError(_ code: CURLcode, _ transfer: Transfer, easy: UnsafeMutableRawPointer)
    -> HTTPTransportError
  {
    let kind: HTTPTransportError.Kind
    switch code {
    case CURLE_COULDNT_CONNECT: kind = .refused
    case CURLE_OPERATION_TIMEDOUT: kind = .timeout
    case CURLE_COULDNT_RESOLVE_HOST: kind = .dns
    case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
      CURLE_SSL_CERTPROBLEM:
      kind = .tls
    default: kind = .other
    }
    let detail = String(cString: transfer.errorBuffer)
    var text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
    // libcurl says "Couldn't connect to server" for a refused connection and an unreachable
    // host alike; the system's reason tells the receiver's owner which.
    let systemError = Int32(clamping: missiontrack_curl_os_errno(easy))
    if code == CURLE_COULDNT_CONNECT && systemError != 0 {
      text += " (\(String(cString: strerror(systemError))))"
    }
    return HTTPTransportError(kind: kind, message: "POST \(transfer.url): \(text)")
  }

  private func milliseconds(_ seconds: Double) -> Int {
    Int((seconds * 1_000).rounded(.up))
  }
}
