/// Anything that can produce position reports for the engine: a gpsd connection, a serial
/// NMEA device, a replayed trace.
///
/// The engine iterates `reportBatches()` when a mission becomes active and stops iterating
/// (cancels its task) when the mission is submitted, cancelled or expires. Ending the
/// iteration must stop the producer and release the device or connection: a source built on
/// `AsyncThrowingStream` does that in its `onTermination` handler.
public protocol FixSource: Sendable {
  /// Opens the source and returns its reports in arrival order.
  func reports() -> AsyncThrowingStream<SourceReport, any Error>
  /// Opens the source and returns its reports in arrival order, several at a time where the
  /// source has several at hand (a trace read chunk by chunk), so that a consumer pays its
  /// per-item costs once per batch. Batches are never empty. The default hands out
  /// `reports()` one by one.
  func reportBatches() -> AsyncThrowingStream<[SourceReport], any Error>
}

extension FixSource {
  /// `reports()`, one report per batch.
  public func reportBatches() -> AsyncThrowingStream<[SourceReport], any Error> {
    let iterator = SendableIterator(reports().makeAsyncIterator())
    return AsyncThrowingStream { try await iterator.next().map { [$0] } }
  }
}

/// An iterator the unfolding closure of a stream may own.
///
/// `@unchecked Sendable`: a stream calls its unfolding closure for one element at a time,
/// never concurrently, so the iterator is used by one task at a time.
final class SendableIterator<Base: AsyncIteratorProtocol>: @unchecked Sendable {
  private var base: Base

  init(_ base: Base) { self.base = base }

  func next() async throws -> Base.Element? { try await base.next() }
}

/// One item from a `FixSource`: a position, or news about the source itself.
public enum SourceReport: Sendable, Hashable {
  /// A decoded position report, before cleaning.
  case fix(Fix)
  /// A change in the source's health (connected, disconnected, no fix, ...).
  case status(SourceStatus)
}
