import Foundation
import MissionTracking

/// A source whose first reports are read ahead, so that a replay knows the trace's own start
/// time before it starts the mission (its `accept` and `start` are stamped with it).
///
/// `firstFixTime()` reads up to the first valid fix and keeps what it read; the source then
/// hands out those reports followed by the rest of the same iteration, once. Works for
/// files and for standard input alike.
///
/// `@unchecked Sendable`: the iterator and the buffer are only touched while holding
/// `lock`, and the engine iterates the source from one task at a time.
package final class PrefetchedFixSource: FixSource, @unchecked Sendable {
  private typealias Batches = AsyncThrowingStream<[SourceReport], any Error>
  private let lock = NSLock()
  private let inner: any FixSource
  private var iterator: Batches.AsyncIterator?
  private var buffered: [[SourceReport]] = []
  private var bufferedError: (any Error)?
  private var exhausted = false
  /// The rest of the current batch, reversed, for `reports()`.
  private var pending: [SourceReport] = []

  /// Wraps `inner`; nothing is read until `firstFixTime()` or an iteration.
  package init(_ inner: any FixSource) { self.inner = inner }

  /// Why the source failed while `firstFixTime()` read ahead (it fails the same way when
  /// iterated), or nil.
  package var failure: (any Error)? { lock.withLock { bufferedError } }

  /// The time of the first valid fix (a fix, in range, not (0, 0)), or nil when the source
  /// ends (or fails) without one.
  package func firstFixTime() async -> Date? {
    var iterator = lock.withLock { self.iterator ?? inner.reportBatches().makeAsyncIterator() }
    var read: [[SourceReport]] = []
    var found: Date?
    var failure: (any Error)?
    do {
      search: while let batch = try await iterator.next() {
        read.append(batch)
        for report in batch {
          if case .fix(let fix) = report, FixCleaner.invalidity(of: fix) == nil {
            found = fix.time
            break search
          }
        }
      }
    } catch {
      failure = error
    }
    let ended = found == nil
    lock.withLock {
      self.iterator = iterator
      buffered.append(contentsOf: read)
      bufferedError = failure
      exhausted = ended
    }
    return found
  }

  package func reportBatches() -> AsyncThrowingStream<[SourceReport], any Error> {
    AsyncThrowingStream { [self] in try await self.nextBatch() }
  }

  package func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    AsyncThrowingStream { [self] in try await self.nextReport() }
  }

  private func nextReport() async throws -> SourceReport? {
    while lock.withLock({ pending.isEmpty }) {
      guard let batch = try await nextBatch() else { return nil }
      lock.withLock { pending = batch.reversed() }
    }
    return lock.withLock { pending.popLast() }
  }

  private func nextBatch() async throws -> [SourceReport]? {
    let (batch, error, iterator) = lock.withLock {
      () -> ([SourceReport]?, (any Error)?, Batches.AsyncIterator?) in
      if !buffered.isEmpty { return (buffered.removeFirst(), nil, nil) }
      if let failure = bufferedError {
        bufferedError = nil
        return (nil, failure, nil)
      }
      if exhausted { return (nil, nil, nil) }
      let current = self.iterator ?? inner.reportBatches().makeAsyncIterator()
      self.iterator = nil
      return (nil, nil, current)
    }
    if let batch { return batch }
    if let error { throw error }
    guard var iterator else { return nil }
    let next = try await iterator.next()
    lock.withLock {
      if next == nil { exhausted = true } else { self.iterator = iterator }
    }
    return next
  }
}
