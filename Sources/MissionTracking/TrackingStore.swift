import Foundation

/// Where the engine loads missions from and records what it decided: the hook for a store.
///
/// The store is a sink and a loader. It records the engine's decisions — transitions,
/// typed events, fence states, travelled distance — and never re-decides them. It refuses
/// only what contradicts a write by another process, with `TrackingError.changedElsewhere`:
/// a transition whose `from` is no longer the stored state, or events of a mission that
/// another process took out of tracking (nothing is recorded after such a stop).
///
/// The engine awaits `commit` before it applies a transition's effects (a transition is
/// durable before the source starts or stops and before its `state` event is published), and
/// awaits `record` before it publishes the events of a report. Each `record` carries the
/// events of one report, so a store may collect them and write them in batched
/// transactions; `flush` makes everything recorded durable.
public protocol TrackingStore: Sendable {
  /// Missions changed since `token` (every mission when `token` is nil), with the token to
  /// ask with next time. Changes written by this store itself may be included.
  func changes(after token: Int64?) async throws -> MissionChanges
  /// Where tracking of mission `id` continues after a restart: its fence states, last
  /// delivered fix and travelled distance; nil when nothing was recorded for it yet.
  func resumePoint(ofMission id: String) async throws -> TrackingPipeline.Resume?
  /// Whether other processes may record batches of the sessions this one decides (DESIGN
  /// §10: nodes on one database, each deciding whichever worker's positions reach it).
  /// When false, no session can be stale and `resumePoints(ofSessionsOtherThan:)` is not
  /// asked.
  var sessionsAreShared: Bool { get }
  /// The resume points of the missions in `versions` (mission id → the session version the
  /// caller holds) whose stored session has another version, by mission id: another
  /// decider recorded batches of them since (DESIGN §10).
  func resumePoints(ofSessionsOtherThan versions: [String: Int64]) async throws
    -> [String: TrackingPipeline.Resume?]
  /// When mission `id` was last started (the time of its latest transition to `active`),
  /// wherever the start was made; nil when it never was. Positions taken before it are
  /// outside the mission.
  func trackingStart(ofMission id: String) async throws -> Date?
  /// Records a transition the engine decided.
  /// - Throws: `TrackingError.changedElsewhere` when the stored state is not
  ///   `transition.from`; `TrackingError.workerBusy` when the store already holds another
  ///   mission of the transition's worker in a tracking state; `TrackingError.unknownWorker`
  ///   when an `accept` names a worker the store does not hold; any other error (nothing
  ///   is then applied).
  func commit(_ transition: MissionTransition) async throws
  /// Records the events of one report with the fence states and distance they leave.
  /// - Throws: `TrackingError.changedElsewhere` when the mission is no longer in a tracking
  ///   state in the store (the batch is dropped); any other error stops tracking.
  func record(_ batch: TrackingBatch) async throws
  /// Records `batches` in order, each as `record(_:)` would alone, and returns what became
  /// of each: nil when it is recorded, else the error `record(_:)` threw for it. A refused
  /// batch does not stop other missions' batches; a mission's later batches are not tried
  /// after it and get its error. A store may write them all in one transaction; an error
  /// of the store itself is then every batch's.
  func record(contentsOf batches: [TrackingBatch]) async -> [(any Error)?]
  /// Makes everything recorded so far durable.
  func flush() async throws
  /// Records events that belong to no tracking session (`mission_nearby`), in order.
  func recordEvents(_ events: [TrackingEvent]) async throws
  /// Every standing watch, by id.
  func watches() async throws -> [Watch]
  /// Adds or replaces a watch.
  func saveWatch(_ watch: Watch) async throws
  /// Removes watch `id`; false when there was none.
  func removeWatch(id: String) async throws -> Bool
}

extension TrackingStore {
  /// False: the default of a store whose sessions only one process decides (its tracking
  /// lease is exclusive).
  public var sessionsAreShared: Bool { false }

  /// None: the default of a store whose sessions only one process decides (its tracking
  /// lease is exclusive).
  public func resumePoints(ofSessionsOtherThan versions: [String: Int64]) async throws
    -> [String: TrackingPipeline.Resume?]
  {
    [:]
  }

  /// `record(_:)` for each batch, one after another.
  public func record(contentsOf batches: [TrackingBatch]) async -> [(any Error)?] {
    var failed: [String: any Error] = [:]
    var results: [(any Error)?] = []
    results.reserveCapacity(batches.count)
    for batch in batches {
      if let error = failed[batch.missionID] {
        results.append(error)
        continue
      }
      do {
        try await record(batch)
        results.append(nil)
      } catch {
        failed[batch.missionID] = error
        results.append(error)
      }
    }
    return results
  }
}
