import Foundation
import MissionCatalog
import MissionStore
import MissionTracking

/// Hands the positions of ingest requests to the engine and, for a batch, makes them durable
/// before the request is answered (DESIGN §8: Overland told "ok" never sends them again).
///
/// A request does not wait on a thread: `write` queues it and returns, and its `reply` is
/// called once it is decided (the server keeps its connection suspended meanwhile). The
/// requests queued at the same time form one group, decided for their workers in one job of
/// the engine (`MissionEngine.ingest(_:)`, each in fix-time order, one after another); then,
/// when one of them is a batch, the whole group is committed with one flush of the store —
/// one transaction, and one fsync, for many phones instead of one each. While a group is
/// decided the next one gathers, so the groups grow with the load, and it is decided while
/// the one before it is flushed. A single position (OsmAnd, OwnTracks) joins the store's
/// group commit instead, as a receiver's fix does (within its 20 ms): an fsync per request
/// (1.1 ms here) would cap those clients far below the rate they need.
final class IngestWriter: @unchecked Sendable {
  /// What one request's positions became.
  struct Outcome: Sendable {
    /// The engine's counts.
    var counts: IngestCounts
    /// Whether the worker has a tracked mission once they were decided.
    var tracked: Bool
  }

  /// Told what became of one request.
  typealias Reply = @Sendable (Result<Outcome, any Error>) -> Void

  /// One queued request.
  private struct Ticket {
    let worker: String
    let fixes: [Fix]
    let durable: Bool
    let reply: Reply
  }

  private let engine: MissionEngine
  private let database: any ServiceStore
  private let lock = NSLock()
  /// Guarded by `lock`: the requests not yet taken into a group.
  private var waiting: [Ticket] = []
  /// Guarded by `lock`: whether a task is taking groups (at most one).
  private var draining = false
  /// Flushes and answers the groups decided, one at a time and in order, on a thread of
  /// its own: a flush waits for the disk, which must not hold a thread of the concurrency
  /// pool (two here) that the engine and the other tasks need meanwhile.
  private let settling = DispatchQueue(label: "missiontrack.ingest-settle")

  /// A writer into `engine`, whose store is `database`.
  init(engine: MissionEngine, database: any ServiceStore) {
    self.engine = engine
    self.database = database
  }

  /// Queues `fixes` of `worker` and returns at once; `reply` is called, on a task of the
  /// writer, once they are decided and, when `durable`, once what they recorded is
  /// committed — or with the engine's or the store's error (then nothing of the group is
  /// acknowledged).
  func write(_ fixes: [Fix], worker: String, durable: Bool, reply: @escaping Reply) {
    let ticket = Ticket(worker: worker, fixes: fixes, durable: durable, reply: reply)
    let starts = lock.withLock { () -> Bool in
      waiting.append(ticket)
      guard !draining else { return false }
      draining = true
      return true
    }
    if starts { Task { await self.drain() } }
  }

  /// Takes groups until none waits. A group is decided while the one before it is still
  /// being flushed: the engine and the disk work at the same time, and the flushes still
  /// run one after another, in order.
  private func drain() async {
    while true {
      let group = lock.withLock { () -> [Ticket] in
        defer { waiting = [] }
        if waiting.isEmpty { draining = false }
        return waiting
      }
      guard !group.isEmpty else { return }
      let results = await decide(group)
      if Self.needsFlush(group, results) {
        settling.async { self.settle(group, results) }
      } else {
        // Nothing to wait for: answered at once, not handed to the flushing thread.
        for (ticket, result) in zip(group, results) { ticket.reply(result) }
      }
    }
  }

  /// The engine's decision of each request of `group`.
  private func decide(_ group: [Ticket]) async -> [Result<Outcome, any Error>] {
    let decided = await engine.ingest(group.map { (fixes: $0.fixes, worker: $0.worker) })
    return decided.map { result in
      result.map { Outcome(counts: $0.counts, tracked: $0.tracked) }
    }
  }

  /// Whether one of `group`'s requests is a batch whose positions were decided: what the
  /// group recorded must be durable before it is answered.
  private static func needsFlush(_ group: [Ticket], _ decided: [Result<Outcome, any Error>])
    -> Bool
  {
    zip(group, decided).contains { ticket, result in
      guard case .success = result else { return false }
      return ticket.durable && !ticket.fixes.isEmpty
    }
  }

  /// Makes what `group` recorded durable, then answers each request.
  private func settle(_ group: [Ticket], _ decided: [Result<Outcome, any Error>]) {
    var results = decided
    do {
      try database.flush()
    } catch {
      results = results.map { $0.flatMap { _ in .failure(error) } }
    }
    for (ticket, result) in zip(group, results) { ticket.reply(result) }
  }
}
