import CommandLineSupport
import Foundation
import MissionTracking
import TextRules

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// The naive GPX reader `bench parse` measures `GPXDecoder` against: Foundation's
/// `XMLParser` (libxml2's SAX interface underneath) over the whole file in memory, strings for
/// every value. It reads `<trkpt>`/`<rtept>` with `lat`, `lon`, `<ele>` and `<time>` by local
/// name, the way a first version would, so its memory grows with the file.
///
/// Beware (why the real reader does not use it): on Linux `parse()` returns true for a
/// truncated document, so the open-element count is checked too.
enum GPXBaseline {
  /// The fixes of `data`, a whole GPX document.
  /// - Throws: `CLIError.runtime`-style failure text when the parser fails.
  static func fixes(in data: Data) throws -> [Fix] {
    let delegate = Delegate()
    // Through a stream: corelibs' XMLParser(data:) hands libxml2 the whole buffer in one
    // push, which it refuses beyond 10 MB (XML_MAX_TEXT_LENGTH) with error 1.
    let parser = XMLParser(stream: InputStream(data: data))
    parser.shouldResolveExternalEntities = false
    parser.shouldProcessNamespaces = false
    parser.delegate = delegate
    guard parser.parse(), delegate.open == 0 else {
      throw GPXBaselineError(
        message: parser.parserError.map { "\($0)" } ?? "truncated document")
    }
    return delegate.fixes
  }

  /// The number of fixes in the GPX file at `path`, read whole into memory first.
  /// - Throws: A file error or `GPXBaselineError`.
  static func countFixes(path: String) throws -> Int {
    try fixes(in: Data(contentsOf: URL(fileURLWithPath: path))).count
  }

  /// Why the baseline failed.
  struct GPXBaselineError: Error, CustomStringConvertible {
    let message: String
    var description: String { "GPX baseline: \(message)" }
  }

  private final class Delegate: NSObject, XMLParserDelegate {
    var fixes: [Fix] = []
    var open = 0
    var lat: Double?
    var lon: Double?
    var ele: Double?
    var time: Date?
    var text = ""
    var inPoint = false

    static func local(_ name: String) -> Substring {
      name.split(separator: ":").last ?? Substring(name)
    }

    func parser(
      _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
      qualifiedName: String?, attributes: [String: String] = [:]
    ) {
      open += 1
      text = ""
      let name = Self.local(elementName)
      if name == "trkpt" || name == "rtept" {
        inPoint = true
        lat = attributes["lat"].flatMap { Double($0) }
        lon = attributes["lon"].flatMap { Double($0) }
        ele = nil
        time = nil
      }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(
      _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
      qualifiedName: String?
    ) {
      open -= 1
      guard inPoint else { return }
      switch Self.local(elementName) {
      case "ele": ele = Double(text.trimmingCharacters(in: .whitespacesAndNewlines))
      case "time": time = UTCTime.parse(text.trimmingCharacters(in: .whitespacesAndNewlines))?.date
      case "trkpt", "rtept":
        inPoint = false
        if let lat, let lon, let time,
          let coordinate = try? Coordinate(latitude: lat, longitude: lon)
        {
          fixes.append(Fix(time: time, coordinate: coordinate, source: "gpx", altitudeMeters: ele))
        }
      default: break
      }
      text = ""
    }
  }
}
