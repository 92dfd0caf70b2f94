import Synchronization

/// Counters shared between a live source and the reader threads it starts. `Sendable`
/// because every access goes through the mutex.
final class LiveSharedCounters: Sendable {
  private let state = Mutex(LiveSourceCounters())

  /// A copy of the counters.
  var snapshot: LiveSourceCounters { state.withLock { $0 } }

  /// Applies `change` under the lock.
  func update(_ change: (inout LiveSourceCounters) -> Void) {
    state.withLock { change(&$0) }
  }
}
