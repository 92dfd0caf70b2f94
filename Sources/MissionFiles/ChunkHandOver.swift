import Foundation

/// Results of chunks computed on other threads, taken in chunk order by one consumer that
/// waits for each: so the consumer can work on chunk 0 while later chunks are computed.
///
/// Used by both stores' imports of a large CSV (`MissionFileReader.csvChunk` per chunk).
///
/// `@unchecked Sendable`: `slots` and `cancelled` are only touched while holding `condition`.
package final class ChunkHandOver<T: Sendable>: @unchecked Sendable {
  private let condition = NSCondition()
  private var slots: [T?]
  private var cancelled = false

  /// Hand-over slots for `count` chunks.
  package init(count: Int) { slots = Array(repeating: nil, count: count) }

  /// Computes every chunk with `body` on the machine's cores, in the background, and
  /// returns at once; a chunk not started when `cancel()` is called is skipped.
  package func produce(_ body: @escaping @Sendable (Int) -> T) {
    let count = condition.withLock { slots.count }
    DispatchQueue.global().async {
      DispatchQueue.concurrentPerform(iterations: count) { index in
        guard !self.isCancelled else { return }
        self.set(index, body(index))
      }
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

  private var isCancelled: Bool { condition.withLock { cancelled } }

  private func set(_ index: Int, _ value: T) {
    condition.withLock {
      slots[index] = value
      condition.broadcast()
    }
  }
}
