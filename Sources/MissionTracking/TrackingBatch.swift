/// The events of one report and the fence states they leave behind, for a `TrackingSink`.
public struct TrackingBatch: Sendable, Hashable {
  /// The active mission.
  public var missionID: String
  /// The worker tracked for it.
  public var workerID: String
  /// Events in order (fix time, then the documented order within one fix).
  public var events: [TrackingEvent]
  /// The state of every fence that had an event in this batch, by fence id: store it so that
  /// a restart resumes without a duplicate enter.
  public var fenceStates: [String: FenceState]
  /// The distance travelled after these events, metres.
  public var travelledMeters: Double
  /// The session version this batch was decided from (the number of its batches recorded
  /// before it): a store shared by several deciders records the batch only while it still
  /// holds that many, and refuses it with `TrackingError.decidedElsewhere` otherwise; nil
  /// records it unchecked.
  public var basedOnVersion: Int64?

  /// Creates a batch.
  public init(
    missionID: String, workerID: String = Worker.localID, events: [TrackingEvent],
    fenceStates: [String: FenceState], travelledMeters: Double, basedOnVersion: Int64? = nil
  ) {
    self.missionID = missionID
    self.workerID = workerID
    self.events = events
    self.fenceStates = fenceStates
    self.travelledMeters = travelledMeters
    self.basedOnVersion = basedOnVersion
  }
}
