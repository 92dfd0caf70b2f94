import Foundation
import MissionTracking

/// A live fix source that reads raw NMEA 0183 from a path: a serial device (USB or on-board
/// UART, a pseudo-terminal), a named pipe, or `-` for standard input — for rigs without gpsd
/// (`missiontrack track --nmea PATH --baud N`).
///
/// Sentences go through the trace reader's `NMEADecoder` (the same fixes, field for field, as
/// `missiontrack decode` gives for the same bytes). Each call to `reports()` opens the path on
/// its own thread (never the cooperative pool), which waits in `poll(2)` and closes the path
/// as soon as the consumer stops iterating.
///
/// - **Terminals** are put into raw mode (no echo, no line editing, 8N1, `CLOCAL | CREAD`) at
///   `baud` (or their current speed when `baud` is nil). End of input or a read error means
///   the device went away (USB unplugged): `disconnected`, then `reconnecting` before each
///   reopen with capped exponential backoff, `connected`, and `gap` before the first new fix.
/// - **Named pipes, standard input and files** end the stream at end of input, after a
///   status `ended`. Nothing is configured; `baud` is ignored.
/// - **Latency.** The decoder keeps an epoch open while sentences of it may still come. The
///   source releases the held fixes once the line has been quiet for `epochTimeout` (a
///   receiver sends each epoch as one burst, then pauses until the next), so a fix arrives
///   about `epochTimeout` after the end of its burst, not an epoch later.
/// - **Statuses.** `connected` (detail names the path and speed), `no_fix` once per episode
///   when the receiver talks but has no solution (the episode ends with the next fix or a
///   reopen), `silent` once when nothing arrives for `silenceTimeout` (then `connected` when
///   input resumes), `disconnected`, `reconnecting`, `gap`, `ended`.
/// - **Robustness.** Garbage, bad checksums and over-long lines are skipped and counted
///   (`counters.statistics`); a fix whose time is not after the last delivered one is dropped
///   and counted (`staleFixesDropped`), so the position never moves back.
///
/// The stream throws `LiveSourceError.unusable` when the path cannot be used at all (not
/// readable, a directory, the terminal rejects the baud rate) or a pipe or file read fails,
/// and `LiveSourceError.unreachable` when it cannot be opened within the retry policy's
/// attempt limit.
public struct NMEADeviceSource: FixSource {
  /// The standard rates a terminal can be set to with `baud`.
  public static let supportedBaudRates = SerialPort.baudRates.map(\.rate)

  /// The path: a tty device, a named pipe, a file, or `-` for standard input.
  public let path: String
  /// The terminal speed to set, or nil to keep the device's current speed.
  public let baud: Int?
  /// How to reopen a device that is missing or went away.
  public let retryPolicy: RetryPolicy
  /// Quiet time on the line after which held epochs are released as fixes.
  public var epochTimeout: Duration { timing.epochTimeout }
  /// No input for this long while open is reported as `silent`; nil never reports.
  public var silenceTimeout: Duration? { timing.silenceTimeout }

  let timing: LiveTiming
  private let sharedCounters = LiveSharedCounters()

  /// Creates a source; nothing is opened until `reports()`.
  ///
  /// - Parameters:
  ///   - path: a serial device such as `/dev/ttyUSB0`, a named pipe, a file, or `-` for
  ///     standard input.
  ///   - baud: the terminal speed, one of `supportedBaudRates` (4800 … 921600); nil keeps
  ///     the device's current speed (Linux's default is 9600). Ignored for pipes and files.
  ///   - retryPolicy: backoff between attempts to (re)open a terminal.
  ///   - epochTimeout: quiet time after which held fixes are released (default 0.2 s; must
  ///     exceed the longest pause a receiver makes inside one epoch's burst).
  ///   - silenceTimeout: how long the device may send nothing before the source reports
  ///     `silent` (default 5 s); `nil` never reports silence.
  /// - Throws: `LiveSourceError.invalidConfiguration` naming the path for an empty path or
  ///   an unsupported baud rate, and for a negative epoch timeout or a silence timeout that
  ///   is not positive.
  public init(
    path: String, baud: Int? = nil, retryPolicy: RetryPolicy = .standard,
    epochTimeout: Duration = .milliseconds(200), silenceTimeout: Duration? = .seconds(5)
  ) throws(LiveSourceError) {
    try self.init(
      path: path, baud: baud, retryPolicy: retryPolicy, epochTimeout: epochTimeout,
      silenceTimeout: silenceTimeout, pollInterval: .milliseconds(50))
  }

  init(
    path: String, baud: Int?, retryPolicy: RetryPolicy, epochTimeout: Duration,
    silenceTimeout: Duration?, pollInterval: Duration
  ) throws(LiveSourceError) {
    guard !path.isEmpty, !path.utf8.contains(0) else {
      throw .invalidConfiguration(
        setting: "NMEA path", value: path, reason: "must be a non-empty path")
    }
    if let baud, SerialPort.speed(forBaud: baud) == nil {
      let rates = NMEADeviceSource.supportedBaudRates.map(String.init).joined(separator: ", ")
      throw .invalidConfiguration(
        setting: "baud rate for \(path)", value: String(baud), reason: "use one of \(rates)")
    }
    timing = try LiveTiming(
      epochTimeout: epochTimeout, silenceTimeout: silenceTimeout, pollInterval: pollInterval)
    self.path = path
    self.baud = baud
    self.retryPolicy = retryPolicy
  }

  /// What every stream of this source has seen so far (cumulative over `reports()` calls).
  public var counters: LiveSourceCounters { sharedCounters.snapshot }

  /// Opens the path on a new reader thread and streams fixes and statuses; see the type's
  /// documentation. Stopping the iteration (or cancelling its task) wakes the reader, which
  /// closes the path at once.
  public func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    LiveSession.stream(
      from: NMEADeviceEndpoint(path: path, baud: baud), retryPolicy: retryPolicy,
      timing: timing,
      counters: sharedCounters, transcript: nil, threadName: "nmea-reader \(path)")
  }
}
