import Foundation
import MissionTracking

/// What one transaction writes for one mission's batches (`PostgresDatabase.record`): the
/// consecutive batches of a session recorded as one, since they are decided one after
/// another from the version of the first.
struct PostgresSessionWrite {
  /// The mission.
  let missionID: String
  /// The worker of its last batch.
  var workerID: String
  /// The indexes of the batches, in the caller's list.
  var indexes: [Int]
  /// Their events, in order.
  var events: [TrackingEvent]
  /// Their fence states, a later batch's over an earlier one's.
  var fenceStates: [String: FenceState]
  /// The distance travelled after the last.
  var travelledMeters: Double
  /// When it was last updated: its last event's time (the session row's and the fence
  /// rows' `updated`; when it was made, for batches without events).
  private(set) var updated: Date
  /// The version the first was decided from (nil: unchecked).
  let basedOnVersion: Int64?
  /// The version the last was decided from.
  private var lastVersion: Int64?

  /// The write of `batch`, the caller's batch number `index`.
  init(_ batch: TrackingBatch, index: Int) {
    missionID = batch.missionID
    workerID = batch.workerID
    indexes = [index]
    events = batch.events
    fenceStates = batch.fenceStates
    travelledMeters = batch.travelledMeters
    updated = batch.events.last?.time ?? Date()
    basedOnVersion = batch.basedOnVersion
    lastVersion = batch.basedOnVersion
  }

  /// Adds `batch`, the next of the mission's batches, when it was decided from the version
  /// the ones before it leave (both unchecked, or the last one's + 1); false otherwise.
  mutating func append(_ batch: TrackingBatch, index: Int) -> Bool {
    let follows: Bool
    switch (lastVersion, batch.basedOnVersion) {
    case (nil, nil): follows = true
    case (let last?, let next?): follows = next == last + 1
    default: follows = false
    }
    guard follows else { return false }
    workerID = batch.workerID
    indexes.append(index)
    events += batch.events
    fenceStates.merge(batch.fenceStates) { _, later in later }
    travelledMeters = batch.travelledMeters
    if let last = batch.events.last { updated = last.time }
    lastVersion = batch.basedOnVersion
    return true
  }

  /// How many batches it records: the version it leaves is `basedOnVersion` + this.
  var span: Int { indexes.count }
}
