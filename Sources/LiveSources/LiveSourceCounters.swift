import TraceFormats

/// What a live source (gpsd, a raw NMEA device) has seen so far: connections, bytes, fixes,
/// statuses, and its decoder's own counts. A snapshot; read the source's `counters` again for
/// fresh values. Cumulative over every `reports()` stream of the source.
public struct LiveSourceCounters: Sendable, Hashable {
  /// Successful connections to gpsd (watch enabled) or opens of the device, the first
  /// included.
  public var connections = 0
  /// Successful connections after the first; each one follows a lost connection.
  public var reconnects = 0
  /// Connection or open attempts that failed.
  public var failedAttempts = 0
  /// Bytes read from gpsd or the device.
  public var bytesRead = 0
  /// Fixes handed to the stream.
  public var fixesDelivered = 0
  /// Fixes dropped because their time was not after the last delivered fix (a replay after a
  /// gpsd restart, a receiver whose clock went back, the rest of an epoch that arrived after
  /// it was released).
  public var staleFixesDropped = 0
  /// Times held-back epochs were released because the line went quiet (`epochTimeout`).
  public var quietReleases = 0
  /// `no_fix` episodes reported.
  public var noFixEpisodes = 0
  /// `silent` episodes reported (connected, but no input for the silence timeout).
  public var silentEpisodes = 0
  /// Times gpsd reported its (last) receiver deactivated while the connection stayed up.
  public var receiverLosses = 0
  /// The decoder's counts over every connection: records read (NMEA sentences, gpsd JSON
  /// lines), fixes, and records skipped by reason (`bad checksum`, `bad JSON`, `no fix`,
  /// `class SKY`, `line too long`, …), exactly as `missiontrack decode` counts them.
  public var statistics = TraceStatistics()

  /// All counters zero.
  public init() {}
}
