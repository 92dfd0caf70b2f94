import MissionTracking

/// Several sources one after the other (the traces of one `replay`), as one source.
///
/// Each source's `ended` status is dropped except the last one's, so the tracker sees one
/// continuous stream. Cancelling the iteration cancels the source being read.
struct ChainedFixSource: FixSource {
  let sources: [any FixSource]

  func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    let sources = self.sources
    return AsyncThrowingStream { continuation in
      let task = Task {
        do {
          for (index, source) in sources.enumerated() {
            for try await report in source.reports() {
              if case .status(let status) = report, status.kind == .ended,
                index < sources.count - 1
              {
                continue
              }
              continuation.yield(report)
            }
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
