import Foundation

/// Results of chunks computed on other threads, taken in chunk order by one consumer that
/// waits for each: so the consumer can work on chunk 0 while later chunks are computed.
///
/// Used by both stores' imports of a large CSV (`MissionFileReader.csvChunk` per chunk).
///
/// `@unchecked Sendable`: `slots`, `next` and `cancelled` are only touched while holding
/// `condition`.
package final class ChunkHandOver<T: Sendable>: @unchecked Sendable {
  private let condition = NSCondition()
  private var slots: [T?]
  /// The first chunk no producer thread has taken yet.
  private var next = 0
  private var cancelled = false

  /// Hand-over slots for `count` chunks.
  package init(count: Int) { slots = Array(repeating: nil, count: count) }

  /// Computes every chunk with `body` on the machine's cores, in the background, and
  /// returns at once; a chunk not started when `cancel()` is called is skipped.
  ///
  /// On threads of its own, not dispatch's: a long validation on every worker of the
  /// global queues would hold back the signal handlers that stop the import (they run on
  /// a global queue), for seconds.
  package func produce(_ body: @escaping @Sendable (Int) -> T) {
    let count = condition.withLock { slots.count }
    for _ in 0..<min(count, ProcessInfo.processInfo.activeProcessorCount) {
      Thread {
        while let index = self.claim() { self.set(index, body(index)) }
      }.start()
    }
  }

  /// The result of chunk `index`, waiting until it is there.
  package func take(_ index: Int) -> T {
    condition.lock()
    defer { condition.unlock() }
    while true {
      if let value = slots[index] {
        slots[index] = nil  // the consumer owns it now: free the slot's memory
        return value
      }
      condition.wait()
    }
  }

  /// Tells the producer that no more results are wanted.
  package func cancel() { condition.withLock { cancelled = true } }

  /// The next chunk to compute, in order; nil when all are taken or no more are wanted.
  private func claim() -> Int? {
    condition.withLock {
      guard !cancelled, next < slots.count else { return nil }
      defer { next += 1 }
      return next
    }
  }

  private func set(_ index: Int, _ value: T) {
    condition.withLock {
      slots[index] = value
      condition.broadcast()
    }
  }
}
