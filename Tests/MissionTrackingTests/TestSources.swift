import Foundation
import MissionTracking

/// A finite source that yields fixed reports (a replayed trace), `batchSize` at a time.
struct ReplaySource: FixSource {
  let items: [SourceReport]
  let batchSize: Int
  init(_ items: [SourceReport], batchSize: Int = 1) {
    self.items = items
    self.batchSize = batchSize
  }
  func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    AsyncThrowingStream { continuation in
      for item in items { continuation.yield(item) }
      continuation.finish()
    }
  }
  func reportBatches() -> AsyncThrowingStream<[SourceReport], any Error> {
    AsyncThrowingStream { continuation in
      var start = 0
      while start < items.count {
        let end = min(items.count, start + batchSize)
        continuation.yield(Array(items[start..<end]))
        start = end
      }
      continuation.finish()
    }
  }
}

/// A live-like source the test drives by hand; records when it was started and stopped.
///
/// `@unchecked Sendable`: every mutable member is accessed under `lock`.
final class RecordingSource: FixSource, @unchecked Sendable {
  private let lock = NSLock()
  private var continuations: [AsyncThrowingStream<SourceReport, any Error>.Continuation] = []
  private var log: [String] = []

  /// "start" and "stop" in the order they happened.
  var history: [String] { lock.withLock { log } }
  var starts: Int { history.filter { $0 == "start" }.count }
  var stops: Int { history.filter { $0 == "stop" }.count }

  func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    let (stream, continuation) = AsyncThrowingStream<SourceReport, any Error>.makeStream()
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      self.lock.withLock { self.log.append("stop") }
    }
    lock.withLock {
      log.append("start")
      continuations.append(continuation)
    }
    return stream
  }

  /// Pushes a report into the latest stream; false when that stream has ended.
  @discardableResult
  func send(_ report: SourceReport) -> Bool {
    guard let continuation = lock.withLock({ continuations.last }) else { return false }
    if case .terminated = continuation.yield(report) { return false }
    return true
  }

  func end() { lock.withLock { continuations.last }?.finish() }
}

/// A store that logs what it was asked, in order, over an in-memory store; can be told to
/// fail commits or records.
actor RecordingStore: TrackingStore {
  let inner: InMemoryTrackingStore
  private(set) var log: [String] = []
  private(set) var batches: [TrackingBatch] = []
  var failCommits = false
  var failRecords = false

  init(_ missions: [Mission]) { inner = InMemoryTrackingStore(missions: missions) }

  func setFailCommits(_ value: Bool) { failCommits = value }
  func setFailRecords(_ value: Bool) { failRecords = value }

  struct Refused: Error {}

  func changes(after token: Int64?) async throws -> MissionChanges {
    await inner.changes(after: token)
  }

  func resumePoint(ofMission id: String) async throws -> TrackingPipeline.Resume? {
    await inner.resumePoint(ofMission: id)
  }

  func trackingStart(ofMission id: String) async throws -> Date? {
    await inner.trackingStart(ofMission: id)
  }

  func commit(_ transition: MissionTransition) async throws {
    if failCommits { throw Refused() }
    try await inner.commit(transition)
    log.append("commit \(transition.from.rawValue)->\(transition.to.rawValue)")
  }

  func record(_ batch: TrackingBatch) async throws {
    if failRecords { throw Refused() }
    try await inner.record(batch)
    batches.append(batch)
    log.append("record " + batch.events.map(\.type).joined(separator: ","))
  }

  func flush() async throws { log.append("flush") }

  func recordEvents(_ events: [TrackingEvent]) async throws {
    await inner.recordEvents(events)
    log.append("events " + events.map(\.type).joined(separator: ","))
  }

  func watches() async throws -> [Watch] { await inner.watches() }

  func saveWatch(_ watch: Watch) async throws { await inner.saveWatch(watch) }

  func removeWatch(id: String) async throws -> Bool { await inner.removeWatch(id: id) }
}
