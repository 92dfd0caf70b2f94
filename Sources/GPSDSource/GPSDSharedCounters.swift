import Synchronization

/// Counters shared between a source and the reader threads it starts. `Sendable` because
/// every access goes through the mutex.
final class GPSDSharedCounters: Sendable {
  private let state = Mutex(GPSDCounters())

  /// A copy of the counters.
  var snapshot: GPSDCounters { state.withLock { $0 } }

  /// Applies `change` under the lock.
  func update(_ change: (inout GPSDCounters) -> Void) {
    state.withLock { change(&$0) }
  }
}
