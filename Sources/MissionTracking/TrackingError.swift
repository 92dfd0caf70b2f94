/// Errors thrown by `MissionTracking`.
public enum TrackingError: Error, Sendable, Equatable, CustomStringConvertible {
  /// `action` is not allowed for mission `missionID` in `state`; nothing was changed.
  case illegalTransition(missionID: String, state: MissionState, action: MissionAction)
  /// Mission `missionID` is accepted by worker `acceptedBy`, so worker `requestedBy` cannot
  /// accept it; nothing was changed.
  case acceptedByAnother(missionID: String, acceptedBy: String, requestedBy: String)
  /// Worker `workerID` already tracks mission `tracked`, so mission `requested` cannot start
  /// (one tracked mission per worker).
  case workerBusy(workerID: String, tracked: String, requested: String)
  /// No worker has this id.
  case unknownWorker(String)
  /// A configuration value out of range, e.g. a negative distance filter.
  case invalidConfiguration(String)
  /// The tracker holds no mission with this id.
  case unknownMission(String)
  /// Another process changed mission `missionID` first: the store holds it in `state`, so
  /// the write that assumed otherwise was refused.
  case changedElsewhere(missionID: String, state: MissionState)
  /// Another process recorded decisions of worker `workerID`'s session of mission
  /// `missionID` since this one read it (another `serve` node took the worker's positions):
  /// the batch decided from the older state was refused and nothing of it was recorded.
  case decidedElsewhere(missionID: String, workerID: String)

  /// One line that names the mission, its state and the attempted action.
  public var description: String {
    switch self {
    case .illegalTransition(let id, let state, let action):
      "cannot \(action.rawValue) mission \(id): it is \(state.rawValue)"
    case .acceptedByAnother(let id, let holder, let requester):
      "cannot accept mission \(id) for worker \(requester): worker \(holder) accepted it"
    case .workerBusy(let worker, let tracked, let requested):
      "cannot start mission \(requested): worker \(worker) already tracks mission \(tracked)"
    case .unknownWorker(let id): "unknown worker \(id)"
    case .invalidConfiguration(let text): "invalid configuration: \(text)"
    case .unknownMission(let id): "unknown mission \(id)"
    case .changedElsewhere(let id, let state):
      "mission \(id) was changed by another process: it is \(state.rawValue) now"
    case .decidedElsewhere(let id, let worker):
      "worker \(worker)'s positions for mission \(id) were decided by another process meanwhile"
    }
  }
}
