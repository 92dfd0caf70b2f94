import Foundation
import MissionTracking
import TraceFormats

/// Helpers for the GPX tests (prefixed so they cannot clash with other tests of the target).
enum GPXTestSupport {
  /// `../shared/reference/gpx` beside the package root, found from this file's path.
  static let referenceDirectory: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("../shared/reference/gpx").standardizedFileURL

  /// Whether the reference folder is present (it is not in a user's clone).
  static let hasReference = FileManager.default.fileExists(
    atPath: referenceDirectory.appendingPathComponent("README.md").path)

  /// `../shared/reference/schema/gpx-1.1.xsd`.
  static let schema = referenceDirectory.deletingLastPathComponent()
    .appendingPathComponent("schema/gpx-1.1.xsd")

  static func reference(_ name: String) throws -> [UInt8] {
    Array(try Data(contentsOf: referenceDirectory.appendingPathComponent(name)))
  }

  /// What one decoding run produced.
  struct Run {
    var fixes: [Fix] = []
    var statistics = TraceStatistics()
    var truncation: TraceError?
  }

  /// Decodes `bytes` in chunks of the sizes `chunkSizes` yields (cycled), then finishes.
  static func decode(
    _ bytes: [UInt8], file: String? = nil, strict: Bool = false, includeWaypoints: Bool = false,
    chunkSizes: [Int] = [1 << 16]
  ) throws(TraceError) -> Run {
    var decoder = GPXDecoder(file: file, strict: strict, includeWaypoints: includeWaypoints)
    var run = Run()
    var offset = 0
    var k = 0
    while offset < bytes.count {
      let size = min(max(1, chunkSizes[k % chunkSizes.count]), bytes.count - offset)
      k += 1
      var failure: TraceError?
      bytes.withUnsafeBytes { raw in
        do throws(TraceError) {
          try decoder.decode(
            UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + size)]), into: &run.fixes)
        } catch {
          failure = error
        }
      }
      if let failure { throw failure }
      offset += size
    }
    try decoder.finish(into: &run.fixes)
    run.statistics = decoder.statistics
    run.truncation = decoder.truncation
    return run
  }

  static func decode(_ text: String, strict: Bool = false, includeWaypoints: Bool = false)
    throws(TraceError) -> Run
  {
    try decode(Array(text.utf8), strict: strict, includeWaypoints: includeWaypoints)
  }

  /// The error `body` throws, or nil.
  static func error(_ body: () throws(TraceError) -> Run) -> TraceError? {
    do {
      _ = try body()
      return nil
    } catch {
      return error
    }
  }

  /// Decodes all points (with or without time) of `text`.
  static func points(_ text: String) throws(TraceError) -> [GPXPoint] {
    var decoder = GPXDecoder()
    var points: [GPXPoint] = []
    let bytes = Array(text.utf8)
    var failure: TraceError?
    bytes.withUnsafeBytes { raw in
      do throws(TraceError) {
        try decoder.decode(raw, into: &points)
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
    try decoder.finish(into: &points)
    return points
  }

  /// Decodes `bytes` in the record form (`.fix`, `.nonTrackFix`, `.untimed`), strictly,
  /// with the decoder's statistics.
  static func records(_ bytes: [UInt8], file: String? = nil) throws(TraceError) -> (
    records: [TraceRecord], statistics: TraceStatistics
  ) {
    var decoder = GPXDecoder(file: file, strict: true)
    var records: [TraceRecord] = []
    var failure: TraceError?
    bytes.withUnsafeBytes { raw in
      do throws(TraceError) {
        try decoder.decode(raw, into: &records)
        try decoder.finish(into: &records)
      } catch {
        failure = error
      }
    }
    if let failure { throw failure }
    return (records, decoder.statistics)
  }

  /// Wraps track points in a GPX 1.1 document.
  static func track(_ points: String, prolog: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>\(prolog)
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
    <trk><trkseg>
    \(points)
    </trkseg></trk>
    </gpx>

    """
  }

  /// Milliseconds since 1970 of `date`, rounded.
  static func millis(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1000).rounded())
  }
}
