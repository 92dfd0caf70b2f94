import Foundation
import MissionTracking

/// A live fix source over gpsd: connects with libgps, watches JSON reports and decodes them
/// with `GPSDJSONDecoder`, the decoder `missiontrack decode` uses for `gpspipe -w` logs, so a
/// report gives the same fix live and replayed.
///
/// Each call to `reports()` opens its own connection on its own thread (never the
/// cooperative pool) and keeps it until the stream's consumer stops iterating; then the
/// watch is disabled and the socket closed at once (the reader waits in `poll(2)` with a
/// wake-up pipe). Before `reports()` and after the stream ends, no connection to gpsd exists.
///
/// What the stream carries:
/// - `.fix` for every epoch with mode ≥ 2 and a finite position and time, gpsd's several
///   `TPV`s of one epoch merged into one fix. A fix whose time is not after the last
///   delivered one is dropped (and counted), so a gpsd restart never replays positions.
/// - `.status`: `disconnected` (with libgps's reason) when gpsd cannot be reached or goes
///   away, or when gpsd reports its receiver deactivated (`DEVICE` with `activated: 0`);
///   `reconnecting` before each retry (capped exponential backoff); `connected` (also when
///   gpsd activates the receiver again); `gap` before the first fix after an outage;
///   `no_fix` once when the receiver starts reporting no fix; `silent` once when nothing
///   arrives for `silenceTimeout`, then `connected` when reports resume.
/// - Garbage and over-long lines are skipped and counted (`counters.statistics`), never
///   fatal.
///
/// The stream ends normally only when its consumer stops; it throws
/// `LiveSourceError.unreachable` when the retry policy has an attempt limit and it is
/// reached.
public struct GPSDFixSource: FixSource {
  /// gpsd's registered port.
  public static let defaultPort = 2947

  /// gpsd's host name or address.
  public let host: String
  /// gpsd's TCP port.
  public let port: Int
  /// The one device to watch (for example `/dev/ttyUSB0`), or `nil` for all of gpsd's.
  public let device: String?
  /// How to retry when gpsd cannot be reached.
  public let retryPolicy: RetryPolicy
  /// How long to wait for more reports of an epoch before releasing its fix when no report
  /// of the next epoch arrives.
  public var epochTimeout: Duration { timing.epochTimeout }
  /// No report for this long while connected is reported as `silent`; nil never reports.
  public var silenceTimeout: Duration? { timing.silenceTimeout }

  let timing: LiveTiming
  /// Receives every byte read from gpsd, when set (tests record what the client received).
  let transcript: LiveTranscript?
  private let sharedCounters = LiveSharedCounters()

  /// Creates a source for gpsd at `host:port`. Nothing connects until `reports()`.
  ///
  /// - Parameters:
  ///   - host: gpsd's host (default `localhost`).
  ///   - port: gpsd's port (default 2947).
  ///   - device: watch only this device path; `nil` watches every device.
  ///   - retryPolicy: backoff between connection attempts.
  ///   - epochTimeout: quiet time after which a pending epoch's fix is released (default
  ///     0.3 s; a fix is otherwise released when the next epoch's first report arrives).
  ///   - silenceTimeout: how long gpsd may send nothing before the source reports `silent`
  ///     (default 5 s); `nil` never reports silence.
  /// - Throws: `LiveSourceError.invalidConfiguration` for an empty host, a port outside
  ///   1–65535, an empty device path, a negative epoch timeout or a silence timeout that is
  ///   not positive.
  public init(
    host: String = "localhost", port: Int = GPSDFixSource.defaultPort, device: String? = nil,
    retryPolicy: RetryPolicy = .standard, epochTimeout: Duration = .milliseconds(300),
    silenceTimeout: Duration? = .seconds(5)
  ) throws(LiveSourceError) {
    try self.init(
      host: host, port: port, device: device, retryPolicy: retryPolicy,
      epochTimeout: epochTimeout, silenceTimeout: silenceTimeout,
      pollInterval: .milliseconds(50), transcript: nil)
  }

  /// Creates a source from a `--gpsd` style endpoint: `HOST:PORT`, `HOST`, `:PORT`,
  /// `[IPv6]:PORT` or `[IPv6]`. A missing host is `localhost`; a missing port is 2947.
  ///
  /// - Throws: `LiveSourceError.invalidConfiguration` when the endpoint cannot be read or a
  ///   setting is out of range.
  public init(
    endpoint: String, device: String? = nil, retryPolicy: RetryPolicy = .standard,
    epochTimeout: Duration = .milliseconds(300), silenceTimeout: Duration? = .seconds(5)
  ) throws(LiveSourceError) {
    let (host, port) = try GPSDFixSource.parseEndpoint(endpoint)
    try self.init(
      host: host, port: port, device: device, retryPolicy: retryPolicy,
      epochTimeout: epochTimeout, silenceTimeout: silenceTimeout)
  }

  init(
    host: String, port: Int, device: String?, retryPolicy: RetryPolicy,
    epochTimeout: Duration, silenceTimeout: Duration?, pollInterval: Duration,
    transcript: LiveTranscript?
  ) throws(LiveSourceError) {
    guard !host.isEmpty, !host.utf8.contains(0) else {
      throw .invalidConfiguration(setting: "gpsd host", value: host, reason: "must not be empty")
    }
    guard (1...65_535).contains(port) else {
      throw .invalidConfiguration(
        setting: "gpsd port", value: String(port), reason: "must be in 1...65535")
    }
    if let device, device.isEmpty || device.utf8.contains(0) {
      throw .invalidConfiguration(
        setting: "gpsd device", value: device, reason: "must be a non-empty path")
    }
    timing = try LiveTiming(
      epochTimeout: epochTimeout, silenceTimeout: silenceTimeout, pollInterval: pollInterval)
    self.host = host
    self.port = port
    self.device = device
    self.retryPolicy = retryPolicy
    self.transcript = transcript
  }

  /// What every stream of this source has seen so far (cumulative over `reports()` calls).
  public var counters: LiveSourceCounters { sharedCounters.snapshot }

  /// Connects to gpsd on a new reader thread and streams its reports; see the type's
  /// documentation. Stopping the iteration (or cancelling its task) disables the watch and
  /// closes the connection.
  public func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    let endpoint = GPSDEndpoint(host: host, port: port, device: device)
    return LiveSession.stream(
      from: endpoint, retryPolicy: retryPolicy,
      timing: timing,
      counters: sharedCounters, transcript: transcript,
      threadName: "gpsd-reader \(endpoint.receiverName)")
  }

  /// `host:port`, with brackets around an IPv6 address.
  static func endpointText(host: String, port: Int) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }

  /// Splits `HOST:PORT`, `HOST`, `:PORT`, `[IPv6]:PORT` or `[IPv6]`.
  static func parseEndpoint(_ text: String) throws(LiveSourceError) -> (host: String, port: Int) {
    func bad(_ reason: String) -> LiveSourceError {
      .invalidConfiguration(setting: "gpsd endpoint", value: text, reason: reason)
    }
    var host: Substring
    var portText: Substring?
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { throw bad("missing ']'") }
      host = text[text.index(after: text.startIndex)..<close]
      let rest = text[text.index(after: close)...]
      if !rest.isEmpty {
        guard rest.first == ":" else { throw bad("expected ':PORT' after ']'") }
        portText = rest.dropFirst()
      }
    } else if let colon = text.firstIndex(of: ":") {
      guard text[text.index(after: colon)...].firstIndex(of: ":") == nil else {
        throw bad("put an IPv6 address in brackets: [ADDRESS]:PORT")
      }
      host = text[..<colon]
      portText = text[text.index(after: colon)...]
    } else {
      host = Substring(text)
    }
    var port = defaultPort
    if let portText {
      guard let value = Int(portText), (1...65_535).contains(value) else {
        throw bad("the port must be a number in 1...65535")
      }
      port = value
    }
    return (host.isEmpty ? "localhost" : String(host), port)
  }
}
