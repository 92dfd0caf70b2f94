/// What the cleaner did: reports seen, epochs merged, fixes accepted, rejections by reason.
public struct CleaningSummary: Sendable, Hashable {
  /// Reports handed to the cleaner.
  public var reports = 0
  /// Reports folded into an earlier report of the same epoch (not rejections).
  public var merged = 0
  /// Clean fixes released.
  public var accepted = 0
  /// Rejected reports by reason.
  public var rejected: [RejectionReason: Int] = [:]

  /// Creates an empty summary.
  public init() {}

  /// The number of reports rejected for `reason`.
  public func count(_ reason: RejectionReason) -> Int { rejected[reason] ?? 0 }

  /// All rejections.
  public var rejectedTotal: Int { rejected.values.reduce(0, +) }

  /// Adds the counts of `other` (for totals over several sessions).
  package mutating func add(_ other: CleaningSummary) {
    reports += other.reports
    merged += other.merged
    accepted += other.accepted
    for (reason, count) in other.rejected { rejected[reason, default: 0] += count }
  }

  /// The non-zero rejection counts in pipeline order.
  public var rejectionsInOrder: [(reason: RejectionReason, count: Int)] {
    RejectionReason.allCases.compactMap { reason in
      guard let count = rejected[reason], count > 0 else { return nil }
      return (reason, count)
    }
  }
}
