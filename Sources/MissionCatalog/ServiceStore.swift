import Foundation
import MissionFiles
import MissionTracking

/// What `missiontrack serve` asks of a store (DESIGN §5, §7, §8, §9), so that it runs
/// unchanged on SQLite (`MissionDatabase`) and on PostgreSQL (`PostgresDatabase`): exactly
/// the calls of the service's routes, its event hub, its ingest writer and its phone leases,
/// and the outbox's (`OutboxStore`: webhooks, MQTT and their delivery claims).
///
/// Synchronous: the HTTP server's threads call it and wait, as they always did on SQLite.
/// Both stores give the same values for the same data: ids in Unicode NFC (an id given in
/// any form names the same mission or worker), missions and workers in code point order,
/// events in sequence order, and the refusals of `MissionRefusal`, `WorkerRefusal` and
/// `MissionFileError` with the same lines.
package protocol ServiceStore: TrackingLeaseStore, OutboxStore {
  // MARK: Missions

  /// One page of missions ordered by id: those after `afterID` (from the first when nil),
  /// only those in `state` when given, at most `limit`; and the id to ask after for the
  /// next page (nil on the last one).
  func missions(after afterID: String?, limit: Int, inState state: MissionState?) throws
    -> (missions: [Mission], nextAfter: String?)

  /// The mission with `id` (in any Unicode normalisation form), or nil.
  func mission(id: String) throws -> Mission?

  /// Imports the missions of a file's bytes in `format`, all or nothing; `fileName` names
  /// the file in errors (`FILE:LINE`).
  /// - Parameter replacingExisting: Update stored missions with the same id instead of
  ///   failing on the first.
  /// - Throws: `MissionFileError` (or the store's form of it) for a bad or refused record,
  ///   `MissionRefusal.missionTracked` for a replace of a tracked mission,
  ///   `.secondTrackedMission` for a second tracked mission of one worker.
  func importMissionFile(
    _ bytes: [UInt8], format: MissionFileFormat, fileName: String, replacingExisting: Bool
  ) throws -> MissionImportCount

  /// Removes mission `id` with everything recorded for it; false when there is none.
  /// - Throws: `MissionRefusal.trackedMissionRemoval` (or the store's form of it) while it
  ///   is tracked (nothing removed).
  @discardableResult
  func removeMission(id: String) throws -> Bool

  /// The audit log of stored mission `id`, oldest first.
  func transitions(ofMission id: String) throws -> [MissionTransition]

  /// The geofence states of stored mission `id`, by fence id.
  func fenceStates(ofMission id: String) throws -> [String: FenceState]

  /// The delivered track of stored mission `id`, in time order.
  func track(ofMission id: String) throws -> [Fix]

  /// How many delivered fixes mission `id`'s track holds.
  func trackCount(ofMission id: String) throws -> Int

  /// Where tracking of mission `id` continues: its fence states, last delivered fix and
  /// travelled distance; nil when nothing was recorded for it.
  func resumePoint(ofMission id: String) throws -> TrackingPipeline.Resume?

  // MARK: Events

  /// The stored events of mission `id` and of worker `worker` (every mission, every worker
  /// when nil) with a sequence number above `afterSequence`, in sequence order, at most
  /// `limit`.
  func events(ofMission id: String?, ofWorker worker: String?, afterSequence: Int64, limit: Int?)
    throws -> [StoredEvent]

  /// Every stored event of mission `id` as its JSON line, in order.
  func eventLines(ofMission id: String) throws -> [String]

  /// The committed events after `afterSequence`, in order, at most `limit`: what a reader
  /// that follows the log may send (a later call never returns an event before them).
  func committedEvents(afterSequence: Int64, limit: Int) throws -> [StoredEvent]

  /// The sequence number of the newest event, recorded events still pending committed first
  /// (0 when there is none).
  func lastEventSequence() throws -> Int64

  /// The sequence number of the newest committed event (0 when there is none).
  func lastCommittedSequence() throws -> Int64

  /// Makes everything recorded so far durable.
  func flush() throws

  // MARK: Workers

  /// Every worker with its devices, by id; `local` is always there.
  func workers() throws -> [Worker]

  /// Worker `id` (in any Unicode normalisation form) with its devices, or nil.
  func worker(_ id: String) throws -> Worker?

  /// Creates worker `worker.id` or replaces its name and devices, all or nothing.
  /// - Throws: `WorkerRefusal.invalidWorker` and `.deviceTaken` (or the store's form).
  func putWorker(_ worker: Worker) throws

  /// Removes worker `id` and its devices; false when there is none.
  /// - Throws: `WorkerRefusal.invalidWorker` for `local`, `.workerTracking` while it has a
  ///   tracked mission (or the store's form).
  func removeWorker(_ id: String) throws -> Bool

  /// The worker device `deviceID` of `ingestProtocol` is registered to, with the device
  /// (its secret), or nil.
  func device(_ ingestProtocol: WorkerDevice.IngestProtocol, id deviceID: String) throws
    -> (worker: String, device: WorkerDevice)?

  /// A number that every change to any worker's devices moves, made by any process or node
  /// (a store's trigger): equal twice, no registration changed in between.
  func deviceRegistryVersion() throws -> Int64

  // MARK: Operations

  /// Checks that the database takes a write now (for `/healthz`).
  func checkWritable() throws

  /// Stops a long write in progress (an import) from any thread: it fails and is rolled
  /// back. Nothing happens when none runs.
  func interrupt()
}
