import Foundation
import MissionTracking
import TextRules

/// Writes fixes as one GPX 1.1 track, incrementally, to any text sink.
///
/// The output is valid against the GPX 1.1 schema (`xmllint --schema gpx.xsd`): children of
/// `<trkpt>` come in schema order (`ele`, `time`, `fix`, `sat`, `hdop`), longitude 180 is
/// written as -180 (the schema's range is [-180, 180)), numbers are plain decimals (no
/// exponent), and speed and course go into a Garmin TrackPointExtension v2 (`gpxtpx:speed`
/// in m/s, `gpxtpx:course` in [0, 360)), which GPX 1.1 has no element for.
/// The horizontal accuracy is written as `<hdop>` = accuracy / `GPXPoint.metersPerHDOP`, the
/// inverse of what `GPXDecoder` reads, so a round trip keeps it.
///
/// Memory is constant: each fix is written as it comes.
///
/// ```swift
/// var writer = GPXWriter(trackName: "mission 42")
/// var out = ""
/// for fix in fixes { writer.write(fix, to: &out) }
/// writer.finish(to: &out)
/// ```
public struct GPXWriter {
  private let creator: String
  private let trackName: String?
  private var started = false
  private var segmentOpen = false
  private var finished = false

  /// The GPX 1.1 namespace.
  public static let namespace = "http://www.topografix.com/GPX/1/1"
  /// Garmin's TrackPointExtension v2 namespace, used for speed and course.
  public static let trackPointExtensionNamespace =
    "http://www.garmin.com/xmlschemas/TrackPointExtension/v2"

  /// Creates a writer.
  /// - Parameters:
  ///   - creator: The `creator` attribute of `<gpx>`.
  ///   - trackName: The `<name>` of the track, if any.
  public init(creator: String = "MissionTrack", trackName: String? = nil) {
    self.creator = creator
    self.trackName = trackName
  }

  /// Writes the document header if it is not written yet.
  public mutating func start(to out: inout some TextOutputStream) {
    guard !started else { return }
    started = true
    var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<gpx version=\"1.1\" creator=\""
    GPXWriter.appendEscaped(creator, to: &text)
    text += "\" xmlns=\"\(GPXWriter.namespace)\""
    text += " xmlns:gpxtpx=\"\(GPXWriter.trackPointExtensionNamespace)\""
    text += " xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""
    text += " xsi:schemaLocation=\"\(GPXWriter.namespace)"
    text += " http://www.topografix.com/GPX/1/1/gpx.xsd\">\n<trk>\n"
    if let trackName {
      text += "<name>"
      GPXWriter.appendEscaped(trackName, to: &text)
      text += "</name>\n"
    }
    out.write(text)
  }

  /// Ends the current `<trkseg>`: the next fix starts a new segment (for a gap or a restart).
  public mutating func startSegment(to out: inout some TextOutputStream) {
    guard segmentOpen else { return }
    out.write("</trkseg>\n")
    segmentOpen = false
  }

  /// Writes one fix as a `<trkpt>` (the header and segment are opened as needed).
  /// - Complexity: O(1).
  public mutating func write(_ fix: Fix, to out: inout some TextOutputStream) {
    precondition(!finished, "GPXWriter: write after finish")
    start(to: &out)
    var text = ""
    text.reserveCapacity(320)
    if !segmentOpen {
      text += "<trkseg>\n"
      segmentOpen = true
    }
    GPXWriter.appendPoint(fix, to: &text)
    out.write(text)
  }

  /// Closes the document. Without any fix, it is an empty (valid) track.
  public mutating func finish(to out: inout some TextOutputStream) {
    guard !finished else { return }
    start(to: &out)
    startSegment(to: &out)
    out.write("</trk>\n</gpx>\n")
    finished = true
  }

  /// A whole GPX document for `fixes`.
  public static func document(
    for fixes: some Sequence<Fix>, creator: String = "MissionTrack", trackName: String? = nil
  ) -> String {
    var writer = GPXWriter(creator: creator, trackName: trackName)
    var out = ""
    for fix in fixes { writer.write(fix, to: &out) }
    writer.finish(to: &out)
    return out
  }

  static func appendPoint(_ fix: Fix, to text: inout String) {
    var lon = (fix.coordinate.longitude * 1e9).rounded() / 1e9
    if lon >= 180 { lon = -180 }
    text += "<trkpt lat=\""
    DecimalText.append(fix.coordinate.latitude, fractionDigits: 9, to: &text)
    text += "\" lon=\""
    DecimalText.append(lon, fractionDigits: 9, to: &text)
    text += "\">"
    if let ele = fix.altitudeMeters, ele.isFinite {
      text += "<ele>"
      DecimalText.append(ele, fractionDigits: 3, to: &text)
      text += "</ele>"
    }
    text += "<time>"
    text += UTCTime.format(fix.time)
    text += "</time>"
    switch fix.mode {
    case .noFix: text += "<fix>none</fix>"
    case .twoD: text += "<fix>2d</fix>"
    case .threeD: text += "<fix>3d</fix>"
    }
    if let sat = fix.satellitesUsed, sat >= 0 {
      text += "<sat>"
      text += String(sat)
      text += "</sat>"
    }
    if let eph = fix.horizontalAccuracyMeters, eph.isFinite, eph >= 0 {
      text += "<hdop>"
      DecimalText.append(eph / GPXPoint.metersPerHDOP, fractionDigits: 6, to: &text)
      text += "</hdop>"
    }
    let speed = fix.speedMetersPerSecond.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
    let course = fix.courseDegrees.flatMap { $0.isFinite ? normalizedCourse($0) : nil }
    if speed != nil || course != nil {
      text += "<extensions><gpxtpx:TrackPointExtension>"
      if let speed {
        text += "<gpxtpx:speed>"
        DecimalText.append(speed, fractionDigits: 3, to: &text)
        text += "</gpxtpx:speed>"
      }
      if let course {
        text += "<gpxtpx:course>"
        DecimalText.append(course, fractionDigits: 3, to: &text)
        text += "</gpxtpx:course>"
      }
      text += "</gpxtpx:TrackPointExtension></extensions>"
    }
    text += "</trkpt>\n"
  }

  /// `degrees` in [0, 360) after rounding to the 3 decimals written.
  static func normalizedCourse(_ degrees: Double) -> Double {
    var c = degrees.truncatingRemainder(dividingBy: 360)
    if c < 0 { c += 360 }
    c = (c * 1000).rounded() / 1000
    return c >= 360 ? 0 : c
  }

  /// Appends `value` escaped for XML, with the characters XML 1.0 forbids dropped.
  static func appendEscaped(_ value: String, to out: inout String) {
    XMLText.appendEscaped(value, to: &out, replacingForbiddenWith: nil)
  }

}
