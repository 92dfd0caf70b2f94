import MissionTracking

/// A `FixSource` whose fixes pass through a `TraceMutator`: the faults of `TraceFaults` on
/// top of any source, live or replayed. Status reports pass through unchanged.
///
/// ```swift
/// let source = try TraceReplaySource(path: "walk.gpx")
///   .injectingFaults(TraceFaults(noiseSigmaMeters: 5, seed: 7))
/// ```
///
/// Every call to `reports()` starts a fresh mutator with the same seed, so each replay of
/// the same trace sees the same faults. A status report releases a fix held back for
/// reordering first. Nothing is read ahead of the consumer, and ending the iteration ends
/// the base source's iteration.
public struct FaultInjectingSource<Base: FixSource>: FixSource {
  /// The source whose fixes are mutated.
  public let base: Base
  /// The faults applied.
  public let faults: TraceFaults

  /// Wraps `base`.
  /// - Throws: `TraceError` when a fault value is out of range.
  public init(_ base: Base, faults: TraceFaults) throws(TraceError) {
    try faults.validate()
    self.base = base
    self.faults = faults
  }

  /// The base source's reports with the faults applied to its fixes.
  public func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    let state = FaultInjectionState(base.reports(), faults: faults)
    return AsyncThrowingStream(unfolding: { try await state.next() })
  }
}

extension FixSource {
  /// This source with `faults` injected into its fixes (see `FaultInjectingSource`).
  /// - Throws: `TraceError` when a fault value is out of range.
  public func injectingFaults(_ faults: TraceFaults) throws(TraceError)
    -> FaultInjectingSource<Self>
  {
    try FaultInjectingSource(self, faults: faults)
  }
}

/// The base iterator, the mutator and the reports it has let through but not yet delivered.
///
/// `@unchecked Sendable`: `AsyncThrowingStream(unfolding:)` calls its closure only from the
/// stream iterator's `next()`, and an iterator is used by one task at a time, so `next()`
/// never runs concurrently with itself and nothing else touches this state.
private final class FaultInjectionState: @unchecked Sendable {
  private var iterator: AsyncThrowingStream<SourceReport, any Error>.AsyncIterator
  private var mutator: TraceMutator?
  private var ready: [SourceReport] = []
  private var readyIndex = 0
  private var fixes: [Fix] = []
  private var ended = false

  init(_ reports: AsyncThrowingStream<SourceReport, any Error>, faults: TraceFaults) {
    iterator = reports.makeAsyncIterator()
    mutator = try? TraceMutator(faults)  // validated by FaultInjectingSource.init
  }

  func next() async throws -> SourceReport? {
    while true {
      if readyIndex < ready.count {
        defer { readyIndex += 1 }
        return ready[readyIndex]
      }
      ready.removeAll(keepingCapacity: true)
      readyIndex = 0
      if ended { return nil }
      guard let report = try await iterator.next() else {
        ended = true
        mutator?.finish(into: &fixes)
        take()
        continue
      }
      switch report {
      case .fix(let fix):
        if mutator == nil {
          fixes.append(fix)
        } else {
          mutator?.mutate(fix, into: &fixes)
        }
        take()
      case .status:
        // News about the source (such as the end of a replay) comes after a held-back fix.
        mutator?.finish(into: &fixes)
        take()
        ready.append(report)
      }
    }
  }

  private func take() {
    for fix in fixes { ready.append(.fix(fix)) }
    fixes.removeAll(keepingCapacity: true)
  }
}
