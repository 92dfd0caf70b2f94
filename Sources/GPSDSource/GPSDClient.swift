import CGPS
import Foundation

/// The only place that calls libgps (and the few POSIX calls beside it): one connection to
/// gpsd, owned and used by exactly one reader thread.
///
/// libgps opens the socket, sends the watch commands and decodes JSON (`gps_unpack`); the
/// reading and line framing are ours, because libgps 3.22's `gps_read` cannot skip an
/// over-long line (its 4 KB buffer fills and it reports "no data" for ever) and cannot tell
/// a garbage line from a disconnect. Not `Sendable`: confined to its thread.
final class GPSDClient {
  /// Why an attempt to connect failed, in libgps's words.
  struct ConnectFailure: Error {
    /// libgps's error code (negative netlib codes such as -6 for "can't connect").
    var code: Int32
    /// `gps_errstr(code)`.
    var message: String
  }

  /// What one read from the socket produced.
  enum ReadResult {
    /// `count` bytes were stored at the start of the buffer.
    case bytes(Int)
    /// Nothing to read yet (interrupted or would block).
    case nothing
    /// gpsd closed the connection or the socket failed; the text says which.
    case closed(String)
  }

  /// gpsd's `gps_data_t` is about 24 KB: on the heap, zeroed, never on a thread's stack.
  private let data: UnsafeMutablePointer<gps_data_t>
  private var isOpen = false
  /// Scratch copy of one line for `gps_unpack`, which wants a writable C string.
  private var lineBuffer: [CChar] = []

  init() {
    let raw = calloc(1, MemoryLayout<gps_data_t>.size)!
    data = raw.bindMemory(to: gps_data_t.self, capacity: 1)
  }

  deinit {
    close()
    free(data)
  }

  /// Blocks `SIGPIPE` on the calling thread, so that a write to a gpsd that just died fails
  /// with `EPIPE` instead of killing the process. `SIGPIPE` from `write` is directed at the
  /// writing thread, so this affects only the reader thread.
  static func ignoreBrokenPipeOnThisThread() {
    var set = sigset_t()
    sigemptyset(&set)
    sigaddset(&set, SIGPIPE)
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// Connects to gpsd at `host:port` (`gps_open`).
  func open(host: String, port: Int) throws(ConnectFailure) {
    close()
    let status = gps_open(host, String(port), data)
    guard status == 0 else {
      let code = errno
      throw ConnectFailure(code: code, message: String(cString: gps_errstr(code)))
    }
    isOpen = true
  }

  /// Asks gpsd to stream JSON reports (`WATCH_ENABLE | WATCH_JSON`), for one device only when
  /// `device` is given. Returns false when the command could not be sent.
  func enableWatch(device: String?) -> Bool {
    guard isOpen else { return false }
    let flags = UInt32(WATCH_ENABLE | WATCH_JSON)
    if let device {
      return device.withCString { path in
        gps_stream(data, flags | UInt32(WATCH_DEVICE), UnsafeMutableRawPointer(mutating: path))
          == 0
      }
    }
    return gps_stream(data, flags, nil) == 0
  }

  /// Tells gpsd to stop streaming (`WATCH_DISABLE`), best effort: a dead gpsd is ignored.
  func disableWatch() {
    guard isOpen else { return }
    _ = gps_stream(data, UInt32(WATCH_DISABLE), nil)
  }

  /// Waits up to `timeoutMicroseconds` for input (`gps_waiting`). False on timeout and, as
  /// libgps documents, on any error; the next read then reports the error.
  func waitForInput(timeoutMicroseconds: Int32) -> Bool {
    guard isOpen else { return false }
    return gps_waiting(data, timeoutMicroseconds)
  }

  /// Reads what the socket has into `buffer` without blocking.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadResult {
    guard isOpen, let base = buffer.baseAddress else { return .closed("not connected") }
    let count = recv(data.pointee.gps_fd, base, buffer.count, Int32(MSG_DONTWAIT))
    if count > 0 { return .bytes(count) }
    if count == 0 { return .closed("gpsd closed the connection") }
    let code = errno
    if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { return .nothing }
    return .closed(String(cString: strerror(code)))
  }

  /// Decodes one `TPV` line with libgps (`gps_unpack`). Returns `nil` when libgps did not
  /// recognise it as a TPV (no mode was set).
  func decodeTPV(_ line: [UInt8]) -> GPSDReport? {
    lineBuffer.removeAll(keepingCapacity: true)
    lineBuffer.reserveCapacity(line.count + 1)
    for byte in line { lineBuffer.append(CChar(bitPattern: byte)) }
    lineBuffer.append(0)
    data.pointee.set = 0
    lineBuffer.withUnsafeMutableBufferPointer { _ = gps_unpack($0.baseAddress, data) }
    let set = data.pointee.set
    guard set & GPSDClient.modeSet != 0 else { return nil }
    let fix = data.pointee.fix
    var time: Date?
    if set & GPSDClient.timeSet != 0 {
      time = Date(
        timeIntervalSince1970: Double(fix.time.tv_sec) + Double(fix.time.tv_nsec) * 1e-9)
    }
    let hasPosition = set & GPSDClient.latLonSet != 0
    return GPSDReport(
      mode: Int(fix.mode), time: time,
      latitude: hasPosition ? fix.latitude : .nan, longitude: hasPosition ? fix.longitude : .nan,
      altitudeMSLMeters: fix.altMSL, ephMeters: fix.eph, epxMeters: fix.epx,
      epyMeters: fix.epy, speedMetersPerSecond: fix.speed, trackDegrees: fix.track)
  }

  /// Closes the socket and frees libgps's private buffer (`gps_close`). Idempotent.
  func close() {
    guard isOpen else { return }
    isOpen = false
    _ = gps_close(data)
  }

  // gps.h's `*_SET` masks: `(1llu<<n)` macros that Swift does not import.
  private static let timeSet: UInt64 = 1 << 2
  private static let latLonSet: UInt64 = 1 << 4
  private static let modeSet: UInt64 = 1 << 10
}
