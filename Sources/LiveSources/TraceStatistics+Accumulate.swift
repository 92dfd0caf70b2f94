/// Folding one reader's counts into a running total while the reader is still going.
import TraceFormats

extension TraceStatistics {
  /// Adds what `current` counted since `baseline` (an earlier snapshot of the same reader).
  /// - Complexity: O(number of distinct reasons).
  mutating func add(_ current: TraceStatistics, since baseline: TraceStatistics) {
    recordsRead += current.recordsRead - baseline.recordsRead
    fixes += current.fixes - baseline.fixes
    untimedPoints += current.untimedPoints - baseline.untimedPoints
    for (reason, count) in current.skipped {
      let added = count - (baseline.skipped[reason] ?? 0)
      if added != 0 { skipped[reason, default: 0] += added }
    }
    for (kind, count) in current.warnings {
      let added = count - (baseline.warnings[kind] ?? 0)
      if added != 0 { warnings[kind, default: 0] += added }
    }
  }
}
