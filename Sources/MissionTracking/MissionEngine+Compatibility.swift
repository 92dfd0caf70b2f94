/// The one-rig accessors from before workers, about worker `local`. Deprecated: use the
/// `…(ofWorker:)` forms; kept until every caller names its worker.
extension MissionEngine {
  /// The mission worker `local` tracks. Deprecated: `trackedMissionID(ofWorker:)`.
  public var activeMissionID: String? { trackedMissionID(ofWorker: Worker.localID) }

  /// Whether a session runs for worker `local`. Deprecated: `isTracking(worker:)`.
  public var isTracking: Bool { isTracking(worker: Worker.localID) }

  /// The fence states of worker `local`'s session. Deprecated: `fenceStates(ofWorker:)`.
  public var fenceStates: [String: FenceState]? { fenceStates(ofWorker: Worker.localID) }

  /// The cleaning counts of worker `local`'s session. Deprecated: `summary(ofWorker:)`.
  public var summary: CleaningSummary? { summary(ofWorker: Worker.localID) }

  /// The cleaning counts of worker `local`'s last ended session. Deprecated.
  public var lastSummary: CleaningSummary? { lastSummary(ofWorker: Worker.localID) }
}
