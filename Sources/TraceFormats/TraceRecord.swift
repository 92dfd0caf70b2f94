import MissionTracking

/// One record of a trace in document order: a fix, or a GPX point that has no time (a planned
/// route, a saved track, a waypoint). What `missiontrack decode` prints; a replay that gives
/// untimed points times along the path (`GPXPoint.fix(at:source:)`) knows them by `.untimed`.
public enum TraceRecord: Sendable, Hashable {
  /// A timed fix, as the fix form of the decoders gives it.
  case fix(Fix)
  /// A GPX point without `<time>`, with its kind, track and segment.
  case untimed(GPXPoint)
}
