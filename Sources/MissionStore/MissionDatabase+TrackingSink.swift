import MissionTracking

/// The store is the tracker's `TrackingSink`: transitions commit in their own transaction
/// before the tracker acts on them, and each report's events join the group commit (the
/// fence states they imply are written with them, in the same transaction).
extension MissionDatabase: TrackingSink {
  /// Commits `transition` through `apply(_:toMission:at:)`, which checks it against the
  /// stored state.
  /// - Throws: `TrackingError.illegalTransition` or `StoreError.stateConflict` when the store
  ///   disagrees (another process changed the mission), `StoreError.sqlite`.
  public func commit(_ transition: MissionTransition) async throws {
    let stored = try apply(transition.action, toMission: transition.missionID, at: transition.time)
    guard stored.to == transition.to else {
      throw StoreError.stateConflict(
        missionID: transition.missionID, stored: stored.from, from: transition.from,
        to: transition.to)
    }
  }

  /// Commits every pending event now (the async twin of the synchronous `flush()`, written
  /// out so that the protocol's do-nothing default can never be picked).
  public func flush() async throws {
    try withConnection { connection in try commitPendingLocked(connection) }
  }

  /// Adds the batch's events to the group commit.
  public func record(_ batch: TrackingBatch) async throws {
    try record(contentsOf: batch.events)
  }
}
