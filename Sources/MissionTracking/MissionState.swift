/// Where a mission is in its lifecycle.
///
/// `open → accepted → active → arrived → submitted → completed`, plus `cancelled` (from open,
/// accepted, active or arrived) and `expired` (from open or accepted). Tracking runs only in
/// `active` and `arrived`.
public enum MissionState: String, Sendable, Hashable, CaseIterable, Codable {
  case open, accepted, active, arrived, submitted, completed, cancelled, expired

  /// Whether the fix source runs in this state.
  public var isTracking: Bool { self == .active || self == .arrived }

  /// Whether no further transition can leave this state.
  public var isFinal: Bool { self == .completed || self == .cancelled || self == .expired }
}
