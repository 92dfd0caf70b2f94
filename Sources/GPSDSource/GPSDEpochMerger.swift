import Foundation
import MissionTracking

/// Merges gpsd's several `TPV` reports of one epoch into one fix.
///
/// gpsd often sends two TPVs for one fix time (for example one after RMC and one after GGA),
/// each carrying what it knew then. Reports with the same time become one `Fix`: the later
/// report's position and mode win, and any member the later report lacks is kept from the
/// earlier one. The merged fix is released when a report with another time arrives, or by
/// `flush()` (the reader calls it after a quiet spell or a disconnect). Pure: no I/O.
struct GPSDEpochMerger {
  private(set) var pending: Fix?

  /// Adds a fix; returns the previous epoch's fix when this one starts a new epoch.
  /// `merged` is set when the fix was folded into the pending one.
  mutating func add(_ fix: Fix) -> (released: Fix?, merged: Bool) {
    guard let current = pending else {
      pending = fix
      return (nil, false)
    }
    guard current.time == fix.time else {
      pending = fix
      return (current, false)
    }
    var combined = fix
    combined.altitudeMeters = fix.altitudeMeters ?? current.altitudeMeters
    combined.horizontalAccuracyMeters =
      fix.horizontalAccuracyMeters ?? current.horizontalAccuracyMeters
    combined.speedMetersPerSecond = fix.speedMetersPerSecond ?? current.speedMetersPerSecond
    combined.courseDegrees = fix.courseDegrees ?? current.courseDegrees
    combined.satellitesUsed = fix.satellitesUsed ?? current.satellitesUsed
    pending = combined
    return (nil, true)
  }

  /// Releases the pending fix, if any.
  mutating func flush() -> Fix? {
    defer { pending = nil }
    return pending
  }
}
