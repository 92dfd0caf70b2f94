/// One open connection to a receiver, as the shared reader loop sees it: a descriptor to
/// wait on and non-blocking reads. Implemented by `GPSDConnection` (a gpsd socket opened by
/// libgps) and `SerialPort` (a tty, a named pipe, a file or standard input).
///
/// Not `Sendable`: one reader thread owns a link from its opening to `close()`.
protocol LiveLink: AnyObject {
  /// The descriptor to `poll(2)` for input.
  var descriptor: Int32 { get }
  /// Whether end of input is the normal end of the source (a pipe, a file) rather than a
  /// lost receiver to reconnect to (gpsd, a terminal).
  var endsAtEndOfInput: Bool { get }
  /// Why the link is lost when the peer hangs up without data, e.g. `the device hung up`.
  var hangUpReason: String { get }
  /// Why the link is lost at end of input when that is not the normal end.
  var endOfInputReason: String { get }
  /// Reads what is available into `buffer` without blocking.
  func read(into buffer: UnsafeMutableRawBufferPointer) -> LinkRead
  /// Releases the connection. Idempotent.
  func close()
}

/// The outcome of one read from a `LiveLink`.
enum LinkRead: Equatable {
  /// `count` bytes were stored at the start of the buffer.
  case bytes(Int)
  /// Nothing to read yet (interrupted or would block).
  case wouldBlock
  /// The peer closed its end.
  case endOfInput
  /// The read failed; the text says why.
  case failed(String)
}

/// Why a link could not be opened. A transient failure (nothing listening yet, a device not
/// plugged in) is retried under the retry policy; any other ends the stream.
struct LinkOpenFailure: Error {
  /// What went wrong, in one line.
  var reason: String
  /// Whether a later attempt may succeed.
  var isTransient: Bool
}
