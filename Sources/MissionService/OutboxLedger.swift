import Synchronization

/// What the deliveries (on their own actors) tell the outbox dispatcher: cursor moves waiting
/// to be stored, and counts for `/metrics`.
///
/// A consumer's cursor moves are kept only from its current run (`generation`): a stopped
/// run's late moves are ignored, so a redelivery that moved a cursor back is not undone by
/// the run it replaced.
final class OutboxLedger: Sendable {
  /// Deliveries by outcome, since the start.
  struct Counts: Sendable, Equatable {
    /// Webhook attempts answered 2xx.
    var delivered = 0
    /// Webhook attempts that failed and will be retried.
    var failed = 0
    /// Webhook events that gave up after the last attempt.
    var dead = 0
    /// Webhooks disabled by `410 Gone`.
    var gone = 0
    /// Events handed to the MQTT broker's connection (the cursor moves on their PUBACK).
    var published = 0
  }

  private struct State {
    var generation: [String: Int] = [:]
    var cursors: [String: Int64] = [:]
    var counts = Counts()
  }

  private let state = Mutex(State())

  /// The counts now.
  var counts: Counts { state.withLock { $0.counts } }

  /// Updates the counts.
  func count(_ update: (inout Counts) -> Void) { state.withLock { update(&$0.counts) } }

  /// Starts run `generation` of `consumer`, dropping any move of an earlier run.
  func begin(_ consumer: String, generation: Int) {
    state.withLock { state in
      state.generation[consumer] = generation
      state.cursors[consumer] = nil
    }
  }

  /// Ends `consumer`'s run: later moves of it are ignored. Returns its move not yet stored.
  func end(_ consumer: String) -> Int64? {
    state.withLock { state in
      state.generation[consumer] = nil
      return state.cursors.removeValue(forKey: consumer)
    }
  }

  /// Run `generation` of `consumer` handed over every event up to `seq`.
  func move(_ consumer: String, generation: Int, to seq: Int64) {
    state.withLock { state in
      guard state.generation[consumer] == generation else { return }
      state.cursors[consumer] = max(state.cursors[consumer] ?? 0, seq)
    }
  }

  /// The moves to store now (removed from the ledger).
  func takeMoves() -> [String: Int64] {
    state.withLock { state in
      defer { state.cursors.removeAll() }
      return state.cursors
    }
  }

  /// Puts back moves that could not be stored, unless their run ended meanwhile.
  func restore(_ moves: [String: Int64]) {
    state.withLock { state in
      for (consumer, seq) in moves where state.generation[consumer] != nil {
        state.cursors[consumer] = max(state.cursors[consumer] ?? 0, seq)
      }
    }
  }
}
