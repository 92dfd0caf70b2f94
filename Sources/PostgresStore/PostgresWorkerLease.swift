import MissionCatalog
import Synchronization

/// One worker's tracking lease on PostgreSQL (`PostgresLeaseHolder`): released by
/// `release()`, when deallocated, or by the server when this process's session ends.
package final class PostgresWorkerLease: TrackingLeaseHandle {
  private let holder: PostgresLeaseHolder
  private let worker: String
  private let generation: Int
  private let released = Mutex(false)

  init(holder: PostgresLeaseHolder, worker: String, generation: Int) {
    self.holder = holder
    self.worker = worker
    self.generation = generation
  }

  deinit { release() }

  /// Gives the lease up (once; later calls do nothing).
  package func release() {
    let first = released.withLock { done in
      defer { done = true }
      return !done
    }
    guard first else { return }
    holder.release(worker: worker, generation: generation)
  }
}
