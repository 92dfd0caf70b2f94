import CGPS
import Foundation

/// The only place that calls libgps: one connection to gpsd, owned and used by exactly one
/// reader thread.
///
/// libgps opens the socket and sends the watch commands (`gps_open`, `gps_stream`); the
/// reading is ours (`recv` on `gps_fd`), and so is the decoding: the JSON lines go through
/// `GPSDJSONDecoder`, the same decoder `missiontrack decode` uses for `gpspipe -w` logs.
/// libgps 3.22's `gps_read` cannot skip an over-long line (its 4 KB buffer fills and it
/// reports "no data" for ever) and cannot tell a garbage line from a disconnect, and its
/// `gps_unpack` decodes members differently from a recorded log. Not `Sendable`: confined to
/// its thread.
final class GPSDConnection: LiveLink {
  /// gpsd's `gps_data_t` is about 24 KB: on the heap, zeroed, never on a thread's stack.
  private let data: UnsafeMutablePointer<gps_data_t>
  private var isOpen = false
  let endsAtEndOfInput = false
  let hangUpReason = "gpsd closed the connection"
  let endOfInputReason = "gpsd closed the connection"

  private init(data: UnsafeMutablePointer<gps_data_t>) {
    self.data = data
    isOpen = true
  }

  /// Connects to gpsd at `host:port` and asks it to stream JSON reports
  /// (`WATCH_ENABLE | WATCH_JSON`), for one device only when `device` is given.
  ///
  /// - Throws: `LinkOpenFailure` (transient) with libgps's reason when gpsd cannot be
  ///   reached or the watch command cannot be sent.
  static func open(host: String, port: Int, device: String?) throws(LinkOpenFailure)
    -> GPSDConnection
  {
    guard let raw = calloc(1, MemoryLayout<gps_data_t>.size) else {
      throw LinkOpenFailure(reason: "out of memory for libgps's gps_data_t", isTransient: true)
    }
    let data = raw.bindMemory(to: gps_data_t.self, capacity: 1)
    guard gps_open(host, String(port), data) == 0 else {
      let code = errno
      free(data)
      throw LinkOpenFailure(
        reason: "\(String(cString: gps_errstr(code))) (libgps error \(code))", isTransient: true)
    }
    // From here the connection owns `data` and frees it in deinit.
    let connection = GPSDConnection(data: data)
    guard connection.enableWatch(device: device) else {
      throw LinkOpenFailure(reason: "could not send the WATCH command", isTransient: true)
    }
    return connection
  }

  deinit {
    close()
    free(data)
  }

  var descriptor: Int32 { isOpen ? data.pointee.gps_fd : -1 }

  private func enableWatch(device: String?) -> Bool {
    let flags = UInt32(WATCH_ENABLE | WATCH_JSON)
    if let device {
      return device.withCString { path in
        gps_stream(data, flags | UInt32(WATCH_DEVICE), UnsafeMutableRawPointer(mutating: path))
          == 0
      }
    }
    return gps_stream(data, flags, nil) == 0
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) -> LinkRead {
    guard isOpen, let base = buffer.baseAddress else { return .failed("not connected") }
    let count = recv(data.pointee.gps_fd, base, buffer.count, Int32(MSG_DONTWAIT))
    if count > 0 { return .bytes(count) }
    if count == 0 { return .endOfInput }
    let code = errno
    if code == EINTR || code == EAGAIN || code == EWOULDBLOCK { return .wouldBlock }
    return .failed(String(cString: strerror(code)))
  }

  /// Tells gpsd to stop streaming (`WATCH_DISABLE`, best effort: a dead gpsd is ignored),
  /// then closes the socket and frees libgps's private buffer (`gps_close`). Idempotent.
  func close() {
    guard isOpen else { return }
    isOpen = false
    _ = gps_stream(data, UInt32(WATCH_DISABLE), nil)
    _ = gps_close(data)
  }
}
