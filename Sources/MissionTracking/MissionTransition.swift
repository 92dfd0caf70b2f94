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

  /// Creates a transition record.
  public init(
    missionID: String, action: MissionAction, from: MissionState, to: MissionState, time: Date
  ) {
    self.missionID = missionID
    self.action = action
    self.from = from
    self.to = to
    self.time = time
  }

  /// The `state` event that reports this transition.
  public var event: TrackingEvent {
    TrackingEvent(time: time, missionID: missionID, kind: .state(from: from, to: to))
  }
}
