/// How recorded events are grouped into transactions (group commit).
///
/// A batch commits when it holds `maxEvents` events or when its oldest event has waited
/// `maxDelay`, whichever comes first, and on `flush()`, on a lifecycle transition and on
/// `close()`. Larger batches amortise the per-commit cost (a WAL append and, with
/// `synchronous = FULL`, one fsync) over more rows; the price is that a crash loses at most
/// the uncommitted batch: up to `maxEvents` events or `maxDelay` of them.
package struct GroupCommitPolicy: Sendable, Hashable {
  /// Commit when this many events are pending (at least 1).
  package var maxEvents: Int
  /// Commit when the oldest pending event has waited this long; `.zero` commits every
  /// event at once.
  package var maxDelay: Duration

  /// Creates a policy.
  /// - Parameters:
  ///   - maxEvents: Events per commit at most (default 2,000).
  ///   - maxDelay: The longest an event stays uncommitted (default 200 ms).
  package init(maxEvents: Int = 2000, maxDelay: Duration = .milliseconds(200)) {
    self.maxEvents = maxEvents
    self.maxDelay = maxDelay
  }

  /// One transaction per event: the naive baseline, and the safest for a slow source.
  package static let immediate = GroupCommitPolicy(maxEvents: 1, maxDelay: .zero)
}
