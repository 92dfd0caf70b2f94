/// What `MissionEngine.ingest(_:worker:)` did with pushed fixes.
package struct IngestCounts: Sendable, Hashable {
  /// Fixes handed to the worker's session and not dropped by cleaning (so far: an epoch is
  /// judged when the next one arrives).
  package var accepted = 0
  /// Fixes whose time equals an accepted one's (DESIGN §2: counted, never moved on).
  package var duplicates = 0
  /// Fixes of a worker with no tracked mission, or dated before its mission's start: dropped,
  /// never recorded.
  package var untracked = 0
  /// Fixes older than the last accepted one.
  package var outOfOrder = 0
  /// Fixes dropped by cleaning for another reason (no fix, invalid position, outlier, …).
  package var rejected = 0

  /// Counts of nothing.
  package init() {}

  /// The counts of `processed` fixes that went into a session whose cleaning counts went
  /// from `before` to `after`, and `untracked` that did not.
  package init(processed: Int, untracked: Int, before: CleaningSummary, after: CleaningSummary) {
    self.untracked = untracked
    duplicates = max(0, after.count(.duplicate) - before.count(.duplicate))
    outOfOrder = max(0, after.count(.outOfOrder) - before.count(.outOfOrder))
    let dropped = max(0, after.rejectedTotal - before.rejectedTotal)
    rejected = max(0, dropped - duplicates - outOfOrder)
    accepted = max(0, processed - dropped)
  }
}
