import Foundation
import MissionTracking

/// Replays a trace that arrives as an `AsyncSequence` of bytes (a download, a socket, a
/// file's `bytes`), decoded as it arrives, as fast as it arrives: the streaming twin of
/// `TraceReplaySource`.
///
/// Bytes are gathered into chunks of `chunkSize` and fed to a `TraceReader` (the same
/// readers, format detected from content); each chunk's fixes come as one batch, then one
/// `source` status `ended`. Stopping the iteration stops reading the sequence.
public struct StreamReplaySource<Bytes: AsyncSequence & Sendable>: FixSource
where Bytes.Element == UInt8 {
  /// The byte stream.
  public let bytes: Bytes
  /// What messages call the trace.
  public let name: String
  /// Stop at the first bad record instead of skipping it.
  public let strict: Bool
  /// Bytes gathered before each decode.
  public let chunkSize: Int

  /// Creates a source; nothing is read until it is iterated.
  public init(bytes: Bytes, name: String = "stream", strict: Bool = false, chunkSize: Int = 1 << 16)
  {
    self.bytes = bytes
    self.name = name
    self.strict = strict
    self.chunkSize = max(1, chunkSize)
  }

  /// The reports one by one.
  public func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    let state = StreamReplayState(self)
    return AsyncThrowingStream { try await state.nextReport() }
  }

  /// The fixes of each decoded chunk as one batch, then `ended`.
  public func reportBatches() -> AsyncThrowingStream<[SourceReport], any Error> {
    let state = StreamReplayState(self)
    return AsyncThrowingStream { try await state.nextBatch() }
  }
}

/// The iteration state of one stream replay.
///
/// `@unchecked Sendable`: a stream calls its unfolding closure for one element at a time, so
/// the iterator, reader and buffers are used by one task at a time.
private final class StreamReplayState<Bytes: AsyncSequence & Sendable>: @unchecked Sendable
where Bytes.Element == UInt8 {
  private let name: String
  private let chunkSize: Int
  private var iterator: Bytes.AsyncIterator
  private let reader: TraceReader
  private var finished = false
  private var pending: [SourceReport] = []

  init(_ source: StreamReplaySource<Bytes>) {
    name = source.name
    chunkSize = source.chunkSize
    iterator = source.bytes.makeAsyncIterator()
    reader = TraceReader(streamNamed: source.name, strict: source.strict)
  }

  func nextBatch() async throws -> [SourceReport]? {
    while !finished {
      if Task.isCancelled { return nil }
      var chunk: [UInt8] = []
      chunk.reserveCapacity(chunkSize)
      while chunk.count < chunkSize, let byte = try await iterator.next() { chunk.append(byte) }
      let ended = chunk.count < chunkSize
      var fixes: [Fix] = []
      _ = try reader.read(appending: chunk, into: &fixes)
      if ended {
        _ = try reader.read(appending: nil, into: &fixes)
        finished = true
        let statistics = reader.statistics
        let status = SourceStatus(
          .ended,
          detail: "\(name): \(statistics.fixes) fixes, \(statistics.skippedTotal) records skipped")
        return fixes.map(SourceReport.fix) + [.status(status)]
      }
      if !fixes.isEmpty { return fixes.map(SourceReport.fix) }
    }
    return nil
  }

  func nextReport() async throws -> SourceReport? {
    while pending.isEmpty {
      guard let batch = try await nextBatch() else { return nil }
      pending = batch.reversed()
    }
    return pending.popLast()
  }
}
