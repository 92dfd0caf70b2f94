import Foundation

/// Pure work split into chunks that run on every core, with the results in chunk order.
enum ParallelChunks {
  /// `body(0) … body(count - 1)`, run concurrently (`DispatchQueue.concurrentPerform`, which
  /// also uses the calling thread and returns when every chunk is done), in index order.
  ///
  /// For CPU-bound, side-effect-free work only: `body` must not block or touch shared state.
  static func map<T: Sendable>(count: Int, _ body: @Sendable (Int) -> T) -> [T] {
    guard count > 1 else { return (0..<count).map(body) }
    let results = Slots<T>(count: count)
    DispatchQueue.concurrentPerform(iterations: count) { index in results.set(index, body(index)) }
    return results.values()
  }

  /// Write-once result slots shared by the chunks.
  ///
  /// `@unchecked Sendable`: `slots` is only read or written while holding `lock`.
  private final class Slots<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [T?]

    init(count: Int) { slots = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ value: T) { lock.withLock { slots[index] = value } }

    /// Every slot, in order (each was set: `concurrentPerform` ran every index).
    func values() -> [T] { lock.withLock { slots.compactMap { $0 } } }
  }
}
