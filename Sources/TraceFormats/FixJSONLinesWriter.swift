import Foundation
import MissionTracking
import TextRules

/// Writes fixes as JSON lines in the shape `missiontrack decode` prints (DESIGN.md §2):
/// `{"time","lat","lon","alt_m","mode","eph_m","speed_mps","course_deg","source","kind"}`.
///
/// Absent values are omitted. `time` is RFC 3339 UTC with milliseconds; `mode` is gpsd's TPV
/// number (2 = 2D, 3 = 3D); `eph_m` is the horizontal accuracy in metres. `kind` is
/// `"waypoint"` or `"route"` for a GPX point that is not a track point; a track point, an NMEA
/// or a gpsd fix has none, so scripts written before it read the track as they did.
public enum FixJSONLinesWriter {
  /// One fix as one JSON object, without the newline.
  public static func line(for fix: Fix) -> String { line(for: fix, includesTime: true) }

  /// One record as one JSON object, without the newline: an untimed GPX point has no `time`,
  /// and a waypoint or route point says so in `kind`.
  public static func line(for record: TraceRecord) -> String {
    switch record {
    case .fix(let fix):
      return line(for: fix, includesTime: true)
    case .nonTrackFix(let fix, let kind):
      return line(for: fix, includesTime: true, kind: kind)
    case .untimed(let point):
      let placeholder = Date(timeIntervalSince1970: 0)
      let fix =
        point.fix(at: placeholder)
        ?? Fix(time: placeholder, coordinate: point.coordinate, mode: .noFix, source: "gpx")
      return line(for: fix, includesTime: false, kind: point.kind)
    }
  }

  private static func line(
    for fix: Fix, includesTime: Bool, kind: GPXPoint.Kind = .trackPoint
  ) -> String {
    var object = JSONObjectWriter()
    if includesTime { object.add("time", UTCTime.format(fix.time)) }
    object.add("lat", fix.coordinate.latitude)
    object.add("lon", fix.coordinate.longitude)
    object.addIfPresent("alt_m", fix.altitudeMeters)
    object.add("mode", fix.mode.rawValue)
    object.addIfPresent("eph_m", fix.horizontalAccuracyMeters)
    object.addIfPresent("speed_mps", fix.speedMetersPerSecond)
    object.addIfPresent("course_deg", fix.courseDegrees)
    object.add("source", fix.source)
    switch kind {
    case .trackPoint: break
    case .routePoint: object.add("kind", "route")
    case .waypoint: object.add("kind", "waypoint")
    }
    return object.result
  }

  /// Appends `fixes` to `output`, one line each, each ending in a newline.
  public static func append(_ fixes: some Sequence<Fix>, to output: inout String) {
    for fix in fixes {
      output += line(for: fix)
      output += "\n"
    }
  }

  /// Writes `fixes` to the file at `path` (created or truncated).
  /// - Throws: `TraceError` naming the path when it cannot be written.
  public static func write(_ fixes: some Sequence<Fix>, to path: String) throws(TraceError) {
    var text = ""
    append(fixes, to: &text)
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    } catch {
      throw TraceError(file: path, reason: "cannot write: \(error.localizedDescription)")
    }
  }
}
