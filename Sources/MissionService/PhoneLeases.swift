import Foundation
import MissionCatalog
import MissionStore
import MissionTracking

/// The tracking leases `serve` holds for the workers its phones feed: one tracker per
/// worker (DESIGN §7), whether its positions come from a receiver or over HTTP.
///
/// A worker's lease is claimed when a request brings its positions and kept while its
/// mission is tracked; it is released when tracking ends, so a `replay --worker W` after
/// the mission runs at once. While another process holds it (a `replay` or `track` of that
/// worker), the worker's positions are refused with 503: phones keep them and send them
/// again, and the other tracker's mission is not fed twice. On PostgreSQL the `serve` nodes
/// share the lease (`claimSharedTracking`): any node takes any worker's positions, and
/// their decisions serialize on the session's row (DESIGN §10). The worker the configured
/// source feeds is not claimed here: `serve` holds its lease for as long as it runs.
///
/// `@unchecked Sendable`: `held` and `watched` are only touched while holding `lock`.
final class PhoneLeases: @unchecked Sendable {
  private let database: any ServiceStore
  private let engine: MissionEngine
  private let ownWorker: String
  private let lock = NSLock()
  private var held: [String: any TrackingLeaseHandle] = [:]
  /// Workers whose lease is released by a task that waits for their tracking to end.
  private var watched: Set<String> = []

  /// Leases on `database`'s workers, kept while `engine` tracks them; `ownWorker`'s lease
  /// is `serve`'s own.
  init(database: any ServiceStore, engine: MissionEngine, ownWorker: String) {
    self.database = database
    self.engine = engine
    self.ownWorker = ownWorker
  }

  /// Makes sure this process holds `worker`'s lease before its positions are decided.
  /// - Throws: `ServiceError` 503 naming the process that tracks the worker; 500 when the
  ///   lock file cannot be created; the store's error otherwise.
  func claim(_ worker: String) throws {
    guard worker != ownWorker else { return }
    try lock.withLock {
      guard held[worker] == nil else { return }
      do {
        held[worker] = try database.claimSharedTracking(
          holder: "missiontrack serve", worker: worker)
      } catch let error as StoreError {
        guard case .trackingLeaseHeld = error else {
          throw ServiceError.internalError(error.description)
        }
        throw ServiceError.unavailable(error.description + "; its positions wait until it stops")
      } catch let refusal as MissionRefusal {
        guard case .trackingLeaseHeld = refusal else {
          throw ServiceError.internalError(refusal.description)
        }
        throw ServiceError.unavailable(refusal.description + "; its positions wait until it stops")
      }
    }
  }

  /// After `worker`'s positions were decided: keeps the lease while its mission is tracked
  /// (released when tracking ends), releases it at once when it is not.
  func settle(_ worker: String, tracked: Bool) {
    guard worker != ownWorker else { return }
    let watch = lock.withLock { () -> Bool in
      guard held[worker] != nil else { return false }
      if !tracked {
        held.removeValue(forKey: worker)?.release()
        return false
      }
      return watched.insert(worker).inserted
    }
    guard watch else { return }
    Task { [engine] in
      _ = await engine.waitUntilTrackingEnds(worker: worker)
      self.lock.withLock {
        self.watched.remove(worker)
        self.held.removeValue(forKey: worker)?.release()
      }
    }
  }
}
