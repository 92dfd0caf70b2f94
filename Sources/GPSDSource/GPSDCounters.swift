/// What a gpsd source has seen so far: lines, skips, connections, fixes. A snapshot; read
/// `GPSDFixSource.counters` again for fresh values.
public struct GPSDCounters: Sendable, Hashable {
  /// Complete lines received from gpsd, including skipped ones.
  public var linesRead = 0
  /// Lines skipped because they were not a JSON object with a `class`, a `TPV` libgps could
  /// not decode, or longer than the line limit (over-long lines count here too).
  public var skippedLines = 0
  /// Lines skipped because they exceeded the line limit (a subset of `skippedLines`).
  public var overlongLines = 0
  /// `TPV` reports with mode 0 or 1: the receiver had no fix.
  public var noFixReports = 0
  /// `TPV` reports with mode 2 or 3 but no usable time or position (absent, NaN, out of
  /// range, or a time before the GPS epoch); never turned into a fix.
  public var unusableReports = 0
  /// `TPV` reports folded into a fix of the same epoch (gpsd often sends two per epoch).
  public var mergedReports = 0
  /// Fixes dropped because their time was not after the last delivered fix (a replay after a
  /// gpsd restart, or a receiver whose clock went back).
  public var staleFixesDropped = 0
  /// Fixes handed to the stream.
  public var fixesDelivered = 0
  /// Successful connections (watch enabled), the first one included.
  public var connections = 0
  /// Successful connections after the first; each one follows a lost connection.
  public var reconnects = 0
  /// Connection attempts that failed.
  public var failedConnectAttempts = 0

  /// All counters zero.
  public init() {}
}
