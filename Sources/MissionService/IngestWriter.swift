import Foundation
import MissionStore
import MissionTracking

/// Hands the positions of ingest requests to the engine and, for a batch, makes them durable
/// before the request is answered (DESIGN §8: Overland told "ok" never sends them again).
///
/// The requests that wait at the same time form one group: each is decided for its worker
/// (`MissionEngine.ingest`, in fix-time order) one after another, then, when one of them is
/// a batch, the whole group is committed with one flush of the store — one transaction, and
/// one fsync, for many phones instead of one each. A single position (OsmAnd, OwnTracks)
/// joins the store's group commit instead, as a receiver's fix does (within its 200 ms): an
/// fsync per request (1.1 ms here) would cap those clients far below the rate they need.
/// A request waits on its server thread, as every route that needs the engine does
/// (`AsyncBridge`).
final class IngestWriter: @unchecked Sendable {
  /// What one request's positions became.
  struct Outcome: Sendable {
    /// The engine's counts.
    var counts: IngestCounts
    /// Whether the worker has a tracked mission once they were decided.
    var tracked: Bool
  }

  /// One waiting request. `result` is written before `done` is signalled and read after
  /// the wait: the semaphore orders the two, so the box is safe to share.
  private final class Ticket: @unchecked Sendable {
    let worker: String
    let fixes: [Fix]
    let durable: Bool
    let done = DispatchSemaphore(value: 0)
    var result: Result<Outcome, any Error>?

    init(worker: String, fixes: [Fix], durable: Bool) {
      self.worker = worker
      self.fixes = fixes
      self.durable = durable
    }
  }

  private let engine: MissionEngine
  private let database: MissionDatabase
  private let lock = NSLock()
  /// Guarded by `lock`: the requests not yet taken into a group.
  private var waiting: [Ticket] = []
  /// Guarded by `lock`: whether a task is taking groups (at most one).
  private var draining = false

  /// A writer into `engine`, whose store is `database`.
  init(engine: MissionEngine, database: MissionDatabase) {
    self.engine = engine
    self.database = database
  }

  /// Decides `fixes` for `worker` and returns once they are decided and, when `durable`,
  /// once what they recorded is committed.
  /// - Throws: The engine's or the store's error (then nothing of the group is
  ///   acknowledged).
  func write(_ fixes: [Fix], worker: String, durable: Bool) throws -> Outcome {
    let ticket = Ticket(worker: worker, fixes: fixes, durable: durable)
    let starts = lock.withLock { () -> Bool in
      waiting.append(ticket)
      guard !draining else { return false }
      draining = true
      return true
    }
    if starts { Task { await self.drain() } }
    ticket.done.wait()
    guard let result = ticket.result else {
      throw ServiceError.internalError("an ingest request ended without a result")
    }
    return try result.get()
  }

  /// Takes groups until none waits.
  private func drain() async {
    while true {
      let group = lock.withLock { () -> [Ticket] in
        defer { waiting = [] }
        if waiting.isEmpty { draining = false }
        return waiting
      }
      guard !group.isEmpty else { return }
      await decide(group)
    }
  }

  private func decide(_ group: [Ticket]) async {
    var results: [Result<Outcome, any Error>] = []
    results.reserveCapacity(group.count)
    var flushes = false
    for ticket in group {
      do {
        var counts = IngestCounts()
        if !ticket.fixes.isEmpty {
          counts = try await engine.ingest(ticket.fixes, worker: ticket.worker)
          flushes = flushes || ticket.durable
        }
        let tracked = await engine.trackedMissionID(ofWorker: ticket.worker) != nil
        results.append(.success(Outcome(counts: counts, tracked: tracked)))
      } catch {
        results.append(.failure(error))
      }
    }
    if flushes {
      do {
        try database.flush()
      } catch {
        results = results.map { $0.flatMap { _ in .failure(error) } }
      }
    }
    for (ticket, result) in zip(group, results) {
      ticket.result = result
      ticket.done.signal()
    }
  }
}
