/// What a reader saw: records read, fixes produced, and records skipped by reason.
public struct TraceStatistics: Sendable, Hashable {
  /// Records (NMEA sentences, GPX points, JSON lines) read, including skipped ones.
  public var recordsRead = 0
  /// Fixes produced after merging the records of each epoch.
  public var fixes = 0
  /// GPX points without a time delivered as records (`TraceRecord.untimed`); in the fix form
  /// they are skipped as `"no time"` instead.
  public var untimedPoints = 0
  /// Skipped records by reason (e.g. `"bad checksum": 23`).
  public var skipped: [String: Int] = [:]
  /// Non-fatal remarks by kind (e.g. `"time without zone, read as UTC": 64`).
  public var warnings: [String: Int] = [:]

  /// Creates empty statistics.
  public init() {}

  /// The total number of skipped records.
  public var skippedTotal: Int { skipped.values.reduce(0, +) }

  /// Counts one skipped record for `reason`.
  mutating func skip(_ reason: String) { skipped[reason, default: 0] += 1 }

  /// Counts one warning of `kind`.
  mutating func warn(_ kind: String) { warnings[kind, default: 0] += 1 }
}
