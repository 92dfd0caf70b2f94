import MissionTracking

/// What the `workers` commands ask of a store (DESIGN §7), so that they run unchanged on
/// SQLite (`MissionDatabase`) and on PostgreSQL (`PostgresDatabase`). Both check a worker
/// write with `WorkerRefusal`'s rules and refuse with its lines.
package protocol WorkerStore: Sendable {
  /// Every worker with its devices, by id (code point order); `local` is always there.
  func workers() async throws -> [Worker]

  /// Worker `id` (in any Unicode normalisation form) with its devices, or nil.
  func worker(_ id: String) async throws -> Worker?

  /// Creates worker `worker.id` or replaces its name and devices, all or nothing.
  /// - Throws: the store's form of `WorkerRefusal.invalidWorker` (`WorkerRefusal.checked`)
  ///   and `.deviceTaken` (a device registered to another worker).
  func putWorker(_ worker: Worker) async throws

  /// Removes worker `id` and its devices; false when there is none.
  /// - Throws: the store's form of `WorkerRefusal.invalidWorker` for `local` and
  ///   `.workerTracking` while the worker has a tracked mission (nothing removed).
  func removeWorker(_ id: String) async throws -> Bool

  /// The tracked (active or arrived) mission of every worker that has one: worker id →
  /// mission id.
  func trackedMissionIDs() async throws -> [String: String]
}
