/// What a raw NMEA source has seen so far: opens, bytes, fixes, and the decoder's own counts.
/// A snapshot; read `NMEADeviceSource.counters` again for fresh values.
public struct NMEADeviceCounters: Sendable, Hashable {
  /// Successful opens of the path, the first one included.
  public var opens = 0
  /// Successful opens after the first; each one follows a lost device.
  public var reopens = 0
  /// Open attempts that failed (device missing, busy, ...).
  public var failedOpenAttempts = 0
  /// Bytes read from the path.
  public var bytesRead = 0
  /// Fixes handed to the stream.
  public var fixesDelivered = 0
  /// Fixes dropped because their time was not after the last delivered fix (a receiver
  /// whose clock went back, or the rest of an epoch that arrived after it was released).
  public var staleFixesDropped = 0
  /// Times the held epochs were released because the line went quiet (`epochTimeout`).
  public var idleReleases = 0
  /// `no_fix` episodes reported.
  public var noFixEpisodes = 0
  /// The NMEA decoder's counts: sentences read, fixes, and sentences skipped by reason
  /// (garbage, bad checksum, no fix, ...).
  public var statistics = TraceStatistics()

  /// All counters zero.
  public init() {}
}
