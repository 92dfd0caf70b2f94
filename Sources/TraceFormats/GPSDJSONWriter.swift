import Foundation
import MissionTracking
import TextRules

/// Writes fixes as gpsd JSON `TPV` reports, one per line, the shape `gpspipe -w` logs and
/// `GPSDJSONDecoder` reads back as the same fixes.
///
/// Each line is `{"class":"TPV","device":…,"mode":2|3,"time":…,"lat":…,"lon":…}` plus
/// `altMSL`, `eph` (horizontal accuracy, metres), `speed` (m/s) and `track` (degrees) when
/// known. Numbers are written in Swift's shortest round-trip form, so the text loses no
/// precision; times are RFC 3339 UTC to the millisecond. Satellite counts are not part of a TPV.
///
/// ```swift
/// let text = GPSDJSONWriter.document(for: fixes)
/// ```
public struct GPSDJSONWriter: Sendable {
  /// The `device` member of every report.
  public let device: String

  /// Creates a writer.
  /// - Parameter device: The `device` member (default `/dev/missiontrack`).
  public init(device: String = "/dev/missiontrack") {
    self.device = device
  }

  /// A whole log for `fixes`, one TPV line per fix.
  public static func document(
    for fixes: some Sequence<Fix>, device: String = "/dev/missiontrack"
  ) -> String {
    let writer = GPSDJSONWriter(device: device)
    var out = ""
    for fix in fixes { writer.write(fix, to: &out) }
    return out
  }

  /// One fix as one TPV object, without the newline.
  public func line(for fix: Fix) -> String {
    var object = JSONObjectWriter()
    object.add("class", "TPV")
    object.add("device", device)
    object.add("mode", fix.mode.rawValue)
    object.add("time", UTCTime.format(fix.time))
    object.add("lat", fix.coordinate.latitude)
    object.add("lon", fix.coordinate.longitude)
    object.addIfPresent("altMSL", fix.altitudeMeters)
    object.addIfPresent("eph", fix.horizontalAccuracyMeters)
    object.addIfPresent("speed", fix.speedMetersPerSecond)
    object.addIfPresent("track", fix.courseDegrees)
    return object.result
  }

  /// Writes one fix as one line.
  public func write(_ fix: Fix, to out: inout some TextOutputStream) {
    out.write(line(for: fix))
    out.write("\n")
  }
}
