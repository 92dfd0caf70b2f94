import MissionTracking

/// Several sources one after the other (the traces of one `replay`), as one source.
///
/// Each source's `ended` status is dropped except the last one's, so the engine sees one
/// continuous stream. It reads on demand: the next source is opened when the previous one
/// ended, and nothing is read ahead of the consumer. Cancelling the iteration ends the
/// source being read.
struct ChainedFixSource: FixSource {
  let sources: [any FixSource]

  func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    Chain(sources).flattened()
  }

  func reportBatches() -> AsyncThrowingStream<[SourceReport], any Error> {
    let chain = Chain(sources)
    return AsyncThrowingStream { try await chain.next() }
  }
}

/// The pull-based state of one chained iteration.
///
/// `@unchecked Sendable`: a stream calls its unfolding closure for one element at a time, so
/// `index`, `current` and `buffered` are used by one task at a time.
private final class Chain: @unchecked Sendable {
  private let sources: [any FixSource]
  private var index = 0
  private var current: AsyncThrowingStream<[SourceReport], any Error>.AsyncIterator?
  private var buffered: [SourceReport] = []

  init(_ sources: [any FixSource]) { self.sources = sources }

  /// The next non-empty batch, with the `ended` status of every source but the last left out.
  func next() async throws -> [SourceReport]? {
    while index < sources.count {
      if current == nil { current = sources[index].reportBatches().makeAsyncIterator() }
      guard var iterator = current else { return nil }
      let batch = try await iterator.next()
      current = iterator
      guard var batch else {
        current = nil
        index += 1
        continue
      }
      if index < sources.count - 1 {
        batch.removeAll {
          if case .status(let status) = $0 { return status.kind == .ended }
          return false
        }
      }
      if !batch.isEmpty { return batch }
    }
    return nil
  }

  /// The reports one by one.
  func flattened() -> AsyncThrowingStream<SourceReport, any Error> {
    AsyncThrowingStream { [self] in try await nextReport() }
  }

  private func nextReport() async throws -> SourceReport? {
    while buffered.isEmpty {
      guard let batch = try await next() else { return nil }
      buffered = batch.reversed()
    }
    return buffered.popLast()
  }
}
