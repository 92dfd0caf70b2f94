import Foundation
import MissionTracking

/// A live fix source over gpsd: connects with libgps, watches JSON reports and turns `TPV`
/// reports into fixes.
///
/// Each call to `reports()` opens its own connection on its own thread (never the
/// cooperative pool) and keeps it until the stream's consumer stops iterating; then the
/// watch is disabled and the socket closed within one poll interval (50 ms). Before
/// `reports()` and after the stream ends, no connection to gpsd exists.
///
/// What the stream carries:
/// - `.fix` for every epoch with mode ≥ 2 and a finite position and time, gpsd's several
///   `TPV`s of one epoch merged into one fix. A fix whose time is not after the last
///   delivered one is dropped (and counted), so a gpsd restart never replays positions.
/// - `.status`: `disconnected` (with libgps's reason) when gpsd cannot be reached or goes
///   away, `reconnecting` before each retry (capped exponential backoff), `connected`,
///   `gap` before the first fix after a reconnection, `no_fix` once when the receiver starts
///   reporting no fix.
/// - Garbage and over-long lines are skipped and counted (`counters`), never fatal.
///
/// The stream ends normally only when its consumer stops; it throws `GPSDError.unreachable`
/// when the retry policy has an attempt limit and it is reached.
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
  public let epochTimeout: Duration

  let pollInterval: Duration
  let maximumLineBytes: Int
  private let sharedCounters = GPSDSharedCounters()

  /// Creates a source for gpsd at `host:port`. Nothing connects until `reports()`.
  ///
  /// - Parameters:
  ///   - host: gpsd's host (default `localhost`).
  ///   - port: gpsd's port (default 2947).
  ///   - device: watch only this device path; `nil` watches every device.
  ///   - retryPolicy: backoff between connection attempts.
  ///   - epochTimeout: quiet time after which a pending epoch's fix is released (default
  ///     0.3 s; a fix is otherwise released when the next epoch's first report arrives).
  /// - Throws: `GPSDError.invalidConfiguration` for an empty host, a port outside 1–65535,
  ///   an empty device path or a negative epoch timeout.
  public init(
    host: String = "localhost", port: Int = GPSDFixSource.defaultPort, device: String? = nil,
    retryPolicy: RetryPolicy = .standard, epochTimeout: Duration = .milliseconds(300)
  ) throws(GPSDError) {
    try self.init(
      host: host, port: port, device: device, retryPolicy: retryPolicy,
      epochTimeout: epochTimeout, pollInterval: .milliseconds(50),
      maximumLineBytes: GPSDLineFramer.defaultMaximumLineBytes)
  }

  /// Creates a source from a `--gpsd` style endpoint: `HOST:PORT`, `HOST`, `:PORT`,
  /// `[IPv6]:PORT` or `[IPv6]`. A missing host is `localhost`; a missing port is 2947.
  ///
  /// - Throws: `GPSDError.invalidConfiguration` when the endpoint cannot be read.
  public init(
    endpoint: String, device: String? = nil, retryPolicy: RetryPolicy = .standard,
    epochTimeout: Duration = .milliseconds(300)
  ) throws(GPSDError) {
    let (host, port) = try GPSDFixSource.parseEndpoint(endpoint)
    try self.init(
      host: host, port: port, device: device, retryPolicy: retryPolicy,
      epochTimeout: epochTimeout)
  }

  init(
    host: String, port: Int, device: String?, retryPolicy: RetryPolicy,
    epochTimeout: Duration, pollInterval: Duration, maximumLineBytes: Int
  ) throws(GPSDError) {
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
    guard epochTimeout >= .zero else {
      throw .invalidConfiguration(
        setting: "epoch timeout", value: "\(epochTimeout)", reason: "must be >= 0")
    }
    self.host = host
    self.port = port
    self.device = device
    self.retryPolicy = retryPolicy
    self.epochTimeout = epochTimeout
    self.pollInterval = pollInterval
    self.maximumLineBytes = maximumLineBytes
  }

  /// What every stream of this source has seen so far (cumulative over `reports()` calls).
  public var counters: GPSDCounters { sharedCounters.snapshot }

  /// Connects to gpsd on a new reader thread and streams its reports; see the type's
  /// documentation. Stopping the iteration (or cancelling its task) disables the watch and
  /// closes the connection.
  public func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    let (stream, continuation) = AsyncThrowingStream<SourceReport, any Error>.makeStream()
    let stop = GPSDStopSignal()
    let session = GPSDSession(
      configuration: .init(
        host: host, port: port, device: device, retryPolicy: retryPolicy,
        epochTimeout: epochTimeout, pollInterval: pollInterval,
        maximumLineBytes: maximumLineBytes),
      continuation: continuation, stop: stop, counters: sharedCounters)
    continuation.onTermination = { _ in stop.request() }
    let thread = Thread { session.run() }
    thread.name = "gpsd-reader \(GPSDFixSource.endpointText(host: host, port: port))"
    thread.start()
    return stream
  }

  /// `host:port`, with brackets around an IPv6 address.
  static func endpointText(host: String, port: Int) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
  }

  /// Splits `HOST:PORT`, `HOST`, `:PORT`, `[IPv6]:PORT` or `[IPv6]`.
  static func parseEndpoint(_ text: String) throws(GPSDError) -> (host: String, port: Int) {
    func bad(_ reason: String) -> GPSDError {
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
