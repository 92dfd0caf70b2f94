/// Why a tracking session ended.
public enum TrackingEnd: Sendable, Hashable {
  /// The source ended by itself (a replayed trace was read to its end).
  case sourceEnded
  /// The mission left the tracking states (submitted, cancelled, expired), in this process
  /// or in another one writing the same store.
  case missionStopped(MissionState)
  /// The mission was removed from the store by another process.
  case missionRemoved
  /// The source or the store failed; tracking stopped.
  case failed(String)
  /// `shutdown` was called.
  case shutdown
}
