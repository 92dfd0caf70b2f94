/// The right to track one worker, held by one process at a time on one database, whatever
/// machine it runs on: what `replay`, `track` and `serve` take before they track, so that
/// they run unchanged on SQLite (`MissionDatabase`) and on PostgreSQL (`PostgresDatabase`).
///
/// Both stores' leases die with their holder, however it exits (a killed process included),
/// and both refuse a second holder with one line naming the worker and the holder's pid.
package protocol TrackingLeaseStore: Sendable {
  /// The lease a store hands out.
  associatedtype Lease: TrackingLeaseHandle

  /// Takes the right to track `worker` on this database; keep the lease for as long as this
  /// process tracks it.
  /// - Parameters:
  ///   - holder: Who holds it, for the message another process gets
  ///     (e.g. "missiontrack replay").
  ///   - worker: The worker's id (in any Unicode normalisation form).
  /// - Throws: `MissionRefusal.trackingLeaseHeld` (or the store's form of it) when another
  ///   process holds it; `WorkerRefusal.invalidWorker` (or the store's form) for an id that
  ///   is not one.
  func claimTracking(holder: String, worker: String) throws -> Lease

  /// Takes the right to decide `worker`'s pushed positions beside the other `serve`
  /// processes of the database. Where the store refuses a batch decided from a state another
  /// process has moved on (`TrackingError.decidedElsewhere`: PostgreSQL), the lease is
  /// shared by those processes and still excludes a `replay` or `track` of the worker;
  /// elsewhere (the default) it is `claimTracking`'s lease, held by one process.
  /// - Throws: As `claimTracking`.
  func claimSharedTracking(holder: String, worker: String) throws -> Lease
}

extension TrackingLeaseStore {
  /// `claimTracking`'s lease: a store that records batches without a version check (SQLite)
  /// is served by one process.
  package func claimSharedTracking(holder: String, worker: String) throws -> Lease {
    try claimTracking(holder: holder, worker: worker)
  }
}
