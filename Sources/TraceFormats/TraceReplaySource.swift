import Foundation
import MissionTracking

/// Replays a recorded trace (NMEA, gpsd JSON or GPX) as a `FixSource`, deterministically.
///
/// Fixes come in file order exactly as `missiontrack decode` prints them (no cleaning: the
/// tracker's pipeline does that), then one `source` status `ended` whose detail summarises
/// the statistics. Replaying the same file twice gives identical fixes.
///
/// - As fast as possible (the default, for tests): no waiting at all.
/// - Paced: each fix is delivered when the wall clock has advanced by its offset from the
///   trace's first fix divided by `speed` (2 = twice real time). A fix whose time is not
///   after the previous one is delivered at once; the trace's own clock is never compared
///   with the wall clock.
///
/// The trace is read chunk by chunk on demand (constant memory): `reports()` reads nothing
/// ahead of the consumer; `reportBatches()` unpaced decodes up to eight chunks ahead, so that
/// parsing runs beside tracking and does not stall while the consumer waits to be scheduled. Blocking reads run on a private serial queue, never on the
/// cooperative pool.
/// Stopping the iteration (cancelling the consuming task or dropping the iterator) stops
/// reading and closes the file; a read already blocked on an idle pipe or tty returns when
/// its next data arrives or the writer closes.
public struct TraceReplaySource: FixSource {
  /// How fixes are released.
  public enum Pacing: Sendable, Hashable {
    /// Every fix at once, as fast as the consumer takes them.
    case asFastAsPossible
    /// By the trace's timestamps, `speed` times real time (must be > 0).
    case realTime(speed: Double)
  }

  /// The trace's path (`-` for standard input), or the name given to in-memory bytes.
  public let path: String
  /// The trace itself, when it was given as bytes rather than a path.
  public let bytes: [UInt8]?
  /// How fixes are released.
  public let pacing: Pacing
  /// Stop with an error at the first bad record instead of skipping it.
  public let strict: Bool
  /// The UTC day for NMEA logs without any date.
  public let fallbackDate: Date?
  /// The GPS week-rollover correction of NMEA dates; nil keeps them as written.
  public let rollover: NMEAWeekRollover?
  /// Times for GPX points without one; nil leaves them out (a trace with no timed point at
  /// all is then an error that says so).
  public var untimed: UntimedReplay?

  /// Creates a replay source; nothing is opened until `reports()` is iterated.
  public init(
    path: String, pacing: Pacing = .asFastAsPossible, strict: Bool = false,
    fallbackDate: Date? = nil, rollover: NMEAWeekRollover? = nil
  ) {
    self.path = path
    bytes = nil
    self.pacing = pacing
    self.strict = strict
    self.fallbackDate = fallbackDate
    self.rollover = rollover
  }

  /// Creates a replay source over a trace held in memory (`name` is what messages call it).
  public init(
    bytes: [UInt8], name: String = "bytes", pacing: Pacing = .asFastAsPossible,
    strict: Bool = false, fallbackDate: Date? = nil, rollover: NMEAWeekRollover? = nil
  ) {
    path = name
    self.bytes = bytes
    self.pacing = pacing
    self.strict = strict
    self.fallbackDate = fallbackDate
    self.rollover = rollover
  }

  /// Creates a replay source over a trace held in a string (its UTF-8 bytes).
  public init(
    text: String, name: String = "text", pacing: Pacing = .asFastAsPossible,
    strict: Bool = false, fallbackDate: Date? = nil, rollover: NMEAWeekRollover? = nil
  ) {
    self.init(
      bytes: Array(text.utf8), name: name, pacing: pacing, strict: strict,
      fallbackDate: fallbackDate, rollover: rollover)
  }

  /// The trace's fixes in file order, then a `source` status `ended`.
  /// - Throws (through the stream): `TraceError` when the trace cannot be opened or read, or
  ///   a bad record in strict mode.
  public func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    let state = ReplayState(source: self)
    return AsyncThrowingStream(unfolding: { try await state.next() })
  }

  /// As `reports()`, but as fast as possible the fixes of each chunk the reader decoded come
  /// as one batch (a paced replay still hands them out one by one, on time).
  public func reportBatches() -> AsyncThrowingStream<[SourceReport], any Error> {
    let state = ReplayState(source: self)
    if case .realTime = pacing {
      return AsyncThrowingStream(unfolding: { try await state.next().map { [$0] } })
    }
    return AsyncThrowingStream(unfolding: { try await state.nextBatch() })
  }
}

/// The reader and pacing state of one replay. The reader's state is touched only inside
/// `queue.sync`/`queue.async` blocks on one serial queue, and the read-ahead state only while
/// holding `lock`, so `@unchecked Sendable` is safe.
private final class ReplayState: @unchecked Sendable {
  private let source: TraceReplaySource
  private let queue = DispatchQueue(label: "missiontrack.replay")
  private var reader: TraceReader?
  private var buffer: [Fix] = []
  private var index = 0
  private var more = true
  private var finished = false
  private var firstFixTime: Date?
  /// Untimed points read, to be given times (with `source.untimed`).
  private var records: [TraceRecord] = []
  /// The last point given to the consumer, for timing the next untimed one.
  private var lastPoint: (time: Date, coordinate: Coordinate)?
  // Read-ahead of `nextBatch` (unpaced replays only), guarded by `lock`.
  private let lock = NSLock()
  /// Batches decoded ahead, oldest first; after the end or a failure, nothing more comes.
  private var ready: [Result<DecodedBatch?, TraceError>] = []
  /// The consumer waiting for the next batch (only while `ready` is empty).
  private var waiter: CheckedContinuation<Result<DecodedBatch?, TraceError>, Never>?
  /// Whether `produce()` is queued or running.
  private var producing = false
  /// Whether the producer delivered the end or a failure.
  private var producedEnd = false
  /// Whether the consumer stopped (cancelled): nothing more is read.
  private var stopped = false
  /// How many batches are decoded ahead of the consumer at most.
  static let readAheadDepth = 8

  /// A batch as the reader's queue hands it over: the first report, then the rest of the
  /// chunk's fixes as decoded.
  private struct DecodedBatch {
    var first: SourceReport
    var rest: ArraySlice<Fix>

    /// The batch as the source delivers it.
    var reports: [SourceReport] {
      var batch: [SourceReport] = []
      batch.reserveCapacity(rest.count + 1)
      batch.append(first)
      for fix in rest { batch.append(.fix(fix)) }
      return batch
    }
  }
  private var previousFixTime: Date?
  /// A read error held back until the fixes read before it are delivered.
  private var pendingFailure: TraceError?
  private let startedAt = ContinuousClock.now
  /// Bytes read (and fixes decoded) at a time: 256 KiB, about 750 GPX points or 1,500 NMEA
  /// epochs per batch, so that the hand-over to the engine (a queue hop, an actor hop, the
  /// store's call, a wake-up of the consumer) is paid once per several hundred fixes.
  static let chunkBytes = 1 << 18

  init(source: TraceReplaySource) { self.source = source }

  /// The next report, or nil at the end (after `ended`) or when the consumer was cancelled.
  func next() async throws -> SourceReport? {
    if Task.isCancelled {
      queue.sync { close() }
      return nil
    }
    let item: Result<(SourceReport, Double?)?, TraceError> = await withCheckedContinuation {
      continuation in
      queue.async { continuation.resume(returning: self.nextOnQueue()) }
    }
    guard let (report, offsetSeconds) = try item.get() else { return nil }
    if let offsetSeconds, case .realTime(let speed) = source.pacing {
      let due = startedAt + .milliseconds(Int64((offsetSeconds / speed * 1000).rounded()))
      if due > ContinuousClock.now {
        do {
          try await Task.sleep(until: due, clock: .continuous)
        } catch {
          queue.sync { close() }
          return nil
        }
      }
    }
    return report
  }

  /// The reports of the rest of the current chunk (at least one), or nil at the end or when
  /// the consumer was cancelled. For unpaced replays only.
  ///
  /// Chunks are decoded on the queue up to `readAheadDepth` ahead of the consumer, which
  /// takes a ready batch under the lock without a hop to the queue: on a busy machine the
  /// consumer's wake-ups are late, and a reader one chunk ahead then sat idle for most of
  /// them.
  func nextBatch() async throws -> [SourceReport]? {
    if Task.isCancelled {
      lock.withLock { stopped = true }
      queue.sync { close() }
      return nil
    }
    let item: Result<DecodedBatch?, TraceError> = await withCheckedContinuation {
      continuation in
      lock.lock()
      var taken: Result<DecodedBatch?, TraceError>?
      if !ready.isEmpty {
        taken = ready.removeFirst()
      } else if producedEnd {
        taken = .success(nil)
      } else {
        waiter = continuation
      }
      let start =
        !producing && !producedEnd && !stopped && ready.count < ReplayState.readAheadDepth
      if start { producing = true }
      lock.unlock()
      if start { queue.async { self.produce() } }
      if let taken { continuation.resume(returning: taken) }
    }
    return try item.get()?.reports
  }

  /// Decodes batches until `readAheadDepth` are ready, the trace ends or fails, or the
  /// consumer stops; each goes to the waiting consumer, else into `ready`. On the queue.
  private func produce() {
    while true {
      if lock.withLock({ stopped }) {
        lock.withLock { producing = false }
        return
      }
      let result = batchOnQueue()
      var ends = true
      if case .success(.some) = result { ends = false }
      lock.lock()
      if ends { producedEnd = true }
      let waiting = waiter
      waiter = nil
      if waiting == nil { ready.append(result) }
      let more = !ends && !stopped && ready.count < ReplayState.readAheadDepth
      if !more { producing = false }
      lock.unlock()
      waiting?.resume(returning: result)
      if !more { return }
    }
  }

  /// The rest of the current chunk as one batch (reading the next chunk when it is used up).
  private func batchOnQueue() -> Result<DecodedBatch?, TraceError> {
    switch nextOnQueue() {
    case .failure(let error): return .failure(error)
    case .success(nil): return .success(nil)
    case .success(let (first, _)?):
      guard case .fix = first, index < buffer.count else {
        return .success(DecodedBatch(first: first, rest: []))
      }
      // The fixes are handed over as they are (shared, not copied) and wrapped as reports by
      // the consumer, off the reader's queue, which is the replay's bottleneck.
      let rest = buffer[index...]
      index = buffer.count
      return .success(DecodedBatch(first: first, rest: rest))
    }
  }

  /// The next report with its offset in trace seconds from the first fix (nil: deliver at
  /// once — statuses, and fixes not after the previous one).
  private func nextOnQueue() -> Result<(SourceReport, Double?)?, TraceError> {
    do throws(TraceError) {
      if finished { return .success(nil) }
      if reader == nil {
        if let bytes = source.bytes {
          reader = TraceReader(
            bytes: bytes, name: source.path, strict: source.strict,
            fallbackDate: source.fallbackDate, rollover: source.rollover,
            chunkSize: ReplayState.chunkBytes)
        } else {
          reader = try TraceReader(
            path: source.path, strict: source.strict, fallbackDate: source.fallbackDate,
            rollover: source.rollover, chunkSize: ReplayState.chunkBytes)
        }
      }
      while index == buffer.count {
        if let pendingFailure { throw pendingFailure }
        // The last chunk's fixes may still be with the consumer: keep the capacity anyway.
        let capacity = buffer.capacity
        buffer.removeAll(keepingCapacity: true)
        if buffer.capacity < capacity { buffer.reserveCapacity(capacity) }
        index = 0
        guard more, let reader else {
          finished = true
          let statistics = reader?.statistics ?? TraceStatistics()
          close()
          if source.untimed == nil, statistics.fixes == 0,
            let untimed = statistics.skipped["no time"], untimed > 0
          {
            throw TraceError(
              file: source.path,
              reason: "\(untimed) points have no time: replay them along the path with "
                + "--speed-mps V (and --waypoints for <wpt> points)")
          }
          let ended = SourceStatus(
            .ended,
            detail: "\(source.path): \(statistics.fixes) fixes, "
              + "\(statistics.skippedTotal) records skipped")
          return .success((.status(ended), nil))
        }
        do {
          if let untimed = source.untimed {
            records.removeAll(keepingCapacity: true)
            more = try reader.read(into: &records)
            time(records, untimed)
          } else {
            more = try reader.read(into: &buffer)
          }
        } catch {
          // Strict mode: every fix before the bad record is delivered, then the error.
          if buffer.isEmpty { throw error }
          pendingFailure = error
        }
      }
      let fix = buffer[index]
      index += 1
      let first = firstFixTime ?? fix.time
      firstFixTime = first
      var offset: Double?
      if previousFixTime.map({ fix.time > $0 }) ?? true {
        offset = fix.time.timeIntervalSince(first)
        previousFixTime = fix.time
      }
      return .success((.fix(fix), offset))
    } catch {
      finished = true
      close()
      return .failure(error)
    }
  }

  /// Appends `records` to `buffer` as fixes, untimed points timed along the path from the
  /// point before them at the configured speed.
  private func time(_ records: [TraceRecord], _ timing: UntimedReplay) {
    for record in records {
      var fix: Fix?
      switch record {
      case .fix(let timed): fix = timed
      case .nonTrackFix(let timed, let kind):
        // A waypoint is a place, not a point of the walk, with a time or without.
        if kind == .waypoint && !timing.includesWaypoints { continue }
        fix = timed
      case .untimed(let point):
        if point.kind == .waypoint && !timing.includesWaypoints { continue }
        let time =
          lastPoint.map {
            $0.time.addingTimeInterval(
              $0.coordinate.distance(to: point.coordinate) / timing.speedMetersPerSecond)
          } ?? timing.start
        fix = point.fix(at: time)
      }
      guard let fix else { continue }
      buffer.append(fix)
      lastPoint = (fix.time, fix.coordinate)
    }
  }

  private func close() { reader = nil }

  deinit { reader = nil }
}
