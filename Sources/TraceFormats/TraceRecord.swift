import MissionTracking

/// One record of a trace in document order: a fix (marked when it is a GPX waypoint or route
/// point), or a GPX point that has no time (a planned route, a saved track, a waypoint). What `missiontrack decode` prints; a replay that gives
/// untimed points times along the path (`GPXPoint.fix(at:source:)`) knows them by `.untimed`.
public enum TraceRecord: Sendable, Hashable {
  /// A timed fix, as the fix form of the decoders gives it: an NMEA epoch, a gpsd report or a
  /// GPX track point.
  case fix(Fix)
  /// A timed GPX point that is not a track point (a `<wpt>` or an `<rtept>`), with its kind,
  /// so that a reader of the records can tell a place or a plan from the recorded track.
  case nonTrackFix(Fix, kind: GPXPoint.Kind)
  /// A GPX point without `<time>`, with its kind, track and segment.
  case untimed(GPXPoint)
}
