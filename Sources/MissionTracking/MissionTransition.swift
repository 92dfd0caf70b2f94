import Foundation

/// One recorded lifecycle change: which mission, what action, from which state to which, when.
public struct MissionTransition: Sendable, Hashable {
  /// The mission that changed.
  public var missionID: String
  /// The action that caused the change.
  public var action: MissionAction
  /// The state before.
  public var from: MissionState
  /// The state after.
  public var to: MissionState
  /// When it happened, UTC (the caller's clock; the fix time for an automatic `arrive`).
  public var time: Date
  /// The mission's worker after the transition: the accepting worker for `accept`, the
  /// mission's worker for every later one (nil while open).
  public var workerID: String?

  /// Creates a transition record.
  public init(
    missionID: String, action: MissionAction, from: MissionState, to: MissionState, time: Date,
    workerID: String? = nil
  ) {
    self.missionID = missionID
    self.action = action
    self.from = from
    self.to = to
    self.time = time
    self.workerID = workerID
  }

  /// The `state` event that reports this transition.
  public var event: TrackingEvent {
    TrackingEvent(
      time: time, missionID: missionID, workerID: workerID, kind: .state(from: from, to: to))
  }
}
