/// Why the cleaner dropped a report, in the order the checks run.
public enum RejectionReason: String, Sendable, Hashable, CaseIterable, Comparable {
  /// The receiver reported no position solution (`mode` = no fix).
  case noFix = "no_fix"
  /// The position is not a WGS-84 position: out of range, not finite, or exactly (0, 0).
  case invalidPosition = "invalid_position"
  /// Dated more than the cleaner's future limit (one day) ahead of now: year 9999, a bad
  /// receiver date. Such a fix would otherwise block every later one as out of order.
  case future
  /// A second identical report of an epoch, or a fix whose time equals the last accepted one.
  case duplicate
  /// A fix whose time is before the last accepted one.
  case outOfOrder = "out_of_order"
  /// The jump from the last accepted fix implies a speed above the limit.
  case outlier
  /// The horizontal accuracy is worse than the configured limit.
  case accuracy

  /// Orders by the position of the check in the cleaning pipeline.
  public static func < (lhs: RejectionReason, rhs: RejectionReason) -> Bool {
    lhs.order < rhs.order
  }

  private var order: Int { RejectionReason.allCases.firstIndex(of: self) ?? 0 }
}
