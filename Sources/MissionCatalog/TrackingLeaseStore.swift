/// What `replay` and `track` ask of a store beside the engine's `TrackingStore`: the right
/// to track one worker, held by one process at a time, so that they run unchanged on SQLite
/// (`MissionDatabase`) and on PostgreSQL (`PostgresDatabase`).
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
  /// - Throws: the store's form of `TrackingLeaseHeld` when another process holds it, and of
  ///   an invalid worker id.
  func claimTracking(holder: String, worker: String) async throws -> Lease
}
