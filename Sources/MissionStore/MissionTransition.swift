import Foundation
import MissionTracking

/// One lifecycle transition of a mission, as recorded in the audit log.
public struct MissionTransition: Sendable, Hashable {
  /// The mission.
  public var missionID: String
  /// The action taken (for a tracker's `state` event, the action that leads from `from` to
  /// `to`); nil only when a stored row names no action this version knows.
  public var action: MissionAction?
  /// The state before.
  public var from: MissionState
  /// The state after.
  public var to: MissionState
  /// When it happened, UTC.
  public var time: Date

  /// Creates a transition record.
  public init(
    missionID: String, action: MissionAction?, from: MissionState, to: MissionState,
    time: Date
  ) {
    self.missionID = missionID
    self.action = action
    self.from = from
    self.to = to
    self.time = time
  }

  /// Whether the state changed (false for an idempotent action such as a second `start`).
  public var changedState: Bool { from != to }

  /// The `state` event for this transition.
  public var event: TrackingEvent {
    TrackingEvent(time: time, missionID: missionID, kind: .state(from: from, to: to))
  }
}
