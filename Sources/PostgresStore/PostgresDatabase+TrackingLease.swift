import MissionCatalog
import MissionTracking
import TextRules

/// The tracking lease of `replay` and `track` (and its refusal) on PostgreSQL, as
/// `MissionDatabase` gives it on SQLite: see `PostgresTrackingLease`.
extension PostgresDatabase: TrackingLeaseStore {
  /// How long a claim waits for a lease another session holds before it is refused: the
  /// server frees a killed holder's lease when it sees the connection close, a few
  /// milliseconds after the kill, so a tracker restarted at once still gets it.
  static let leaseGrace = Duration.seconds(1)

  /// Takes the right to track `worker` on this database, on a connection of the lease's
  /// own; keep the lease for as long as this process tracks the worker.
  /// - Parameter holder: Who holds it, for the message another process gets
  ///   (e.g. "missiontrack replay").
  /// - Throws: `WorkerRefusal.invalidWorker` for an id against `Identifier`;
  ///   `TrackingLeaseHeld` naming the worker and the process that holds it (after
  ///   `leaseGrace`); `PostgresError` when the server cannot be reached.
  package nonisolated func claimTracking(holder: String, worker: String = Worker.localID)
    async throws -> PostgresTrackingLease
  {
    if let problem = Identifier.problem(with: worker) {
      throw WorkerRefusal.invalidWorker(id: worker, reason: problem)
    }
    let lease = try PostgresTrackingLease(
      uri: uri, worker: Identifier.normalized(worker), holder: holder)
    let clock = ContinuousClock()
    let deadline = clock.now + Self.leaseGrace
    while try !lease.tryTake() {
      guard clock.now < deadline else {
        let holder = try lease.holder()
        lease.release()
        throw TrackingLeaseHeld(
          database: uri, worker: lease.worker, holder: holder ?? "another process")
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    return lease
  }
}
