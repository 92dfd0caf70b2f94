import Foundation

/// The GPS week-rollover correction of NMEA dates: a receiver with the 10-bit week-counter
/// bug reports a date a whole number of 1024-week eras (19.6 years) too early (1999 or 2000
/// for a fix taken in 2019 or later).
///
/// A date before `pivot` moves forward by whole eras until it is on or after it, so corrected
/// dates fall in [`pivot`, `pivot` + 1024 weeks). Dates on or after the pivot are kept: the
/// bug never moves a date forward, and a far-future date is for the cleaner to reject.
///
/// - `NMEAWeekRollover(pivot: now − 512 weeks)` (`around(_:)`) brings every date within
///   512 weeks of `now`, as gpsd does against the system clock: what live sources use.
/// - `NMEAWeekRollover(pivot: 2017-01-01)` is gpsd 3.22's own rule for NMEA (its
///   `gpsd_utc_resolve` moves a date before the leap second of 2017 forward 1024 weeks),
///   for dates after 1997.
public struct NMEAWeekRollover: Sendable, Hashable {
  /// One rollover era, 1024 weeks, in seconds.
  public static let eraSeconds = 1024.0 * 7 * 86_400

  /// The earliest date kept as written.
  public let pivot: Date

  /// A correction that moves dates before `pivot` forward by whole 1024-week eras.
  public init(pivot: Date) { self.pivot = pivot }

  /// The correction that brings dates within 512 weeks of `reference` (the system clock for
  /// live sources).
  public static func around(_ reference: Date) -> NMEAWeekRollover {
    NMEAWeekRollover(pivot: reference.addingTimeInterval(-eraSeconds / 2))
  }

  /// `seconds` since 1970, moved forward by whole eras when before the pivot; nil when it is
  /// not before it (no correction).
  func corrected(_ seconds: Double) -> Double? {
    let pivotSeconds = pivot.timeIntervalSince1970
    guard seconds < pivotSeconds, seconds.isFinite, pivotSeconds.isFinite else { return nil }
    let eras = ((pivotSeconds - seconds) / NMEAWeekRollover.eraSeconds).rounded(.up)
    let moved = seconds + eras * NMEAWeekRollover.eraSeconds
    // Rounding of the division may leave the date one era short of the pivot.
    return moved < pivotSeconds ? moved + NMEAWeekRollover.eraSeconds : moved
  }
}
