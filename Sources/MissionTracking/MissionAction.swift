/// A lifecycle action applied to a mission.
public enum MissionAction: String, Sendable, Hashable, CaseIterable {
  /// open → accepted.
  case accept
  /// accepted → active: tracking starts.
  case start
  /// active → arrived: taken automatically on the first geofence enter.
  case arrive
  /// active or arrived → submitted: tracking stops.
  case submit
  /// submitted → completed.
  case complete
  /// open, accepted, active or arrived → cancelled: tracking stops.
  case cancel
  /// open or accepted → expired (deadline passed).
  case expire

  /// The state this action leads to from `state`, or nil when it is not allowed there.
  ///
  /// `start` on an active or arrived mission and `submit`, `cancel` on a mission already in
  /// that state are idempotent: they return the current state.
  public func target(from state: MissionState) -> MissionState? {
    switch (self, state) {
    case (.accept, .open): .accepted
    case (.accept, .accepted): .accepted
    case (.start, .accepted): .active
    case (.start, .active), (.start, .arrived): state
    case (.arrive, .active): .arrived
    case (.arrive, .arrived): .arrived
    case (.submit, .active), (.submit, .arrived): .submitted
    case (.submit, .submitted): .submitted
    case (.complete, .submitted): .completed
    case (.complete, .completed): .completed
    case (.cancel, .open), (.cancel, .accepted), (.cancel, .active), (.cancel, .arrived):
      .cancelled
    case (.cancel, .cancelled): .cancelled
    case (.expire, .open), (.expire, .accepted): .expired
    case (.expire, .expired): .expired
    default: nil
    }
  }
}
