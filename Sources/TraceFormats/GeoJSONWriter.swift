import Foundation
import MissionTracking
import TextRules

/// Writes fixes as GeoJSON (RFC 7946), incrementally, to any text sink.
///
/// Positions are longitude first (`[lon, lat]`, plus altitude in metres when the fix has
/// one), in decimal degrees with 7 decimals (about 1 cm). Two layouts:
///
/// - `.lineString` (default): one `Feature` whose geometry is a `LineString` of the fixes and
///   whose `properties.coordinateProperties.times` holds their RFC 3339 times in the same
///   order (the convention of Mapbox's togeojson). Coordinates stream out as they come; the
///   times (about 27 bytes a fix) are held until `finish`, because JSON puts them after the
///   geometry. With a single fix the geometry is a `Point`, with none it is `null` (a
///   LineString needs two positions).
/// - `.points`: a `FeatureCollection` of one `Point` feature per fix with `time`, `mode`
///   and, when known, `eph_m`, `speed_mps`, `course_deg`, `sat`, `source` (the keys of
///   `missiontrack decode`): constant memory.
///
/// A track crossing the antimeridian is not split (RFC 7946 §3.1.9 recommends it).
public struct GeoJSONWriter {
  /// How fixes are laid out.
  public enum Layout: Sendable, Hashable {
    /// One `Feature` with a `LineString` and per-position times.
    case lineString
    /// A `FeatureCollection` of `Point` features.
    case points
  }

  private let layout: Layout
  private let name: String?
  private var count = 0
  private var first: Fix?
  private var times = ""
  private var finished = false

  /// Creates a writer.
  /// - Parameters:
  ///   - layout: `.lineString` (default) or `.points`.
  ///   - name: A `name` property for the feature (line string) or collection (points).
  public init(layout: Layout = .lineString, name: String? = nil) {
    self.layout = layout
    self.name = name
  }

  /// Writes one fix.
  /// - Complexity: O(1).
  public mutating func write(_ fix: Fix, to out: inout some TextOutputStream) {
    precondition(!finished, "GeoJSONWriter: write after finish")
    count += 1
    var text = ""
    switch layout {
    case .points:
      if count == 1 {
        text += "{\"type\":\"FeatureCollection\","
        if let name {
          text += "\"name\":"
          JSONObjectWriter.appendQuoted(name, to: &text)
          text += ","
        }
        text += "\"features\":[\n"
      } else {
        text += ",\n"
      }
      GeoJSONWriter.appendPointFeature(fix, to: &text)
    case .lineString:
      if count == 1 {
        first = fix
        return
      }
      if count == 2, let first {
        text += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":[\n"
        GeoJSONWriter.appendPosition(first, to: &text)
        appendTime(first)
        self.first = nil
      }
      text += ",\n"
      GeoJSONWriter.appendPosition(fix, to: &text)
      appendTime(fix)
    }
    out.write(text)
  }

  /// Closes the document (an empty collection or a feature with `null` geometry when no fix
  /// was written).
  public mutating func finish(to out: inout some TextOutputStream) {
    guard !finished else { return }
    finished = true
    var text = ""
    switch layout {
    case .points:
      if count == 0 {
        text += "{\"type\":\"FeatureCollection\",\"features\":[]}\n"
      } else {
        text += "\n]}\n"
      }
    case .lineString:
      if count == 0 {
        text += "{\"type\":\"Feature\",\"geometry\":null,\"properties\":{"
      } else if count == 1, let first {
        text += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":"
        GeoJSONWriter.appendPosition(first, to: &text)
        appendTime(first)
        text += "},\"properties\":{"
      } else {
        text += "\n]},\"properties\":{"
      }
      if let name {
        text += "\"name\":"
        JSONObjectWriter.appendQuoted(name, to: &text)
        text += ","
      }
      text += "\"coordinateProperties\":{\"times\":[" + times + "]}}}\n"
      times = ""
    }
    out.write(text)
  }

  /// A whole GeoJSON document for `fixes`.
  public static func document(
    for fixes: some Sequence<Fix>, layout: Layout = .lineString, name: String? = nil
  ) -> String {
    var writer = GeoJSONWriter(layout: layout, name: name)
    var out = ""
    for fix in fixes { writer.write(fix, to: &out) }
    writer.finish(to: &out)
    return out
  }

  private mutating func appendTime(_ fix: Fix) {
    if !times.isEmpty { times += "," }
    times += "\""
    times += UTCTime.format(fix.time)
    times += "\""
  }

  static func appendPosition(_ fix: Fix, to text: inout String) {
    text += "["
    DecimalText.append(fix.coordinate.longitude, fractionDigits: 7, to: &text)
    text += ","
    DecimalText.append(fix.coordinate.latitude, fractionDigits: 7, to: &text)
    if let ele = fix.altitudeMeters, ele.isFinite {
      text += ","
      DecimalText.append(ele, fractionDigits: 3, to: &text)
    }
    text += "]"
  }

  static func appendPointFeature(_ fix: Fix, to text: inout String) {
    text += "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":"
    appendPosition(fix, to: &text)
    var properties = JSONObjectWriter()
    properties.add("time", UTCTime.format(fix.time))
    properties.add("mode", fix.mode.rawValue)
    properties.addIfPresent("eph_m", fix.horizontalAccuracyMeters)
    properties.addIfPresent("speed_mps", fix.speedMetersPerSecond)
    properties.addIfPresent("course_deg", fix.courseDegrees)
    properties.addIfPresent("sat", fix.satellitesUsed)
    properties.add("source", fix.source)
    text += "},\"properties\":"
    text += properties.result
    text += "}"
  }
}
