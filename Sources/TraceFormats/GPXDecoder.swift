import Foundation
import MissionTracking

/// A streaming GPX 1.0 / 1.1 reader: chunks of a GPX document in, fixes (or points) out.
///
/// What becomes a fix: every `<trkpt>` and `<rtept>`, in document order, that has a `<time>`
/// and does not say `<fix>none</fix>`; `<wpt>` too when `includeWaypoints` is set (waypoints
/// are usually places, not a trace). Nothing is ever invented: a point without a time is
/// skipped and counted as `"no time"` (as gpsd and GPSBabel users expect). Callers that want
/// such points anyway (geometry only) use `decode(_:into:)` for `GPXPoint`s.
///
/// - Times: zone offsets are applied (`Z`, `±hh:mm`, `±hhmm`), fractions of any length are
///   read, and a time with no zone is read as UTC and counted as the warning
///   `"time without zone, read as UTC"`.
/// - `<ele>` → altitude, `<hdop>` → accuracy (`hdop × GPXPoint.metersPerHDOP`, gpsd's `eph`
///   rule as in the NMEA reader; `differentialMetersPerHDOP` for `<fix>dgps</fix>`), `<sat>`,
///   `<fix>` → mode (else 3D with `<ele>`, 2D without), GPX 1.0 `<speed>`/`<course>` and any
///   `speed`/`course` element inside the point's `<extensions>` (Garmin TrackPointExtension
///   v2, `ns3:` or unprefixed); other extensions are skipped unread.
/// - Elements are matched by local name, so prefixes (`<ns2:trkpt>`) and a missing `xmlns`
///   both work. A UTF-8 byte-order mark is skipped; UTF-16 is refused.
/// - Safety: no DTD is read and no entity is expanded (only `&lt;`-style predefined and
///   character references inside the values read), so a file cannot make the reader fetch
///   anything or blow up. Memory is constant: at most one unfinished tag (≤ 1 MiB) is held.
///
/// Errors name the file, line and column (1-based; the column counts bytes). Lenient mode
/// (the default) skips a bad point and counts it by reason (`"missing lat"`,
/// `"latitude out of range"`, `"bad time"`, …); a bad optional value (`<ele>`, `<hdop>`, …)
/// is dropped with a warning and the point kept. Strict mode throws at the first of either.
/// XML that is not well-formed throws in both modes, because what follows cannot be trusted.
/// A document that ends early (truncated, missing `</gpx>`) throws from `finish` in strict
/// mode; in lenient mode the fixes before it stand, `finish` returns normally, the warning
/// `"truncated document at LINE:COLUMN (reason)"` is counted (so a generic summary shows
/// it), an unfinished point is skipped as `"truncated document"`, and `truncation` holds the
/// located error.
public struct GPXDecoder: TraceDecoder {
  private var scanner: GPXScanner
  private var points: [GPXPoint] = []
  private let includeWaypoints: Bool

  /// Creates a decoder.
  /// - Parameters:
  ///   - file: The path shown in errors (`-` for standard input), or nil.
  ///   - strict: Throw at the first bad point or value instead of skipping it.
  ///   - includeWaypoints: Turn timed `<wpt>`s into fixes too (otherwise they are counted as
  ///     skipped with reason `"waypoint"`).
  public init(file: String? = nil, strict: Bool = false, includeWaypoints: Bool = false) {
    scanner = GPXScanner(file: file, strict: strict)
    self.includeWaypoints = includeWaypoints
  }

  /// Counts so far: `recordsRead` counts every point element read.
  public var statistics: TraceStatistics { scanner.statistics }

  /// In lenient mode, where and how the document ended too early; nil for a complete one.
  public var truncation: TraceError? { scanner.truncation }

  /// Decodes `chunk` and appends the fixes its complete points make to `fixes`.
  /// - Throws: `TraceError` for XML that is not well-formed or is not GPX, or (strict) for a
  ///   bad point or value.
  /// - Complexity: O(n) in the chunk size.
  public mutating func decode(_ chunk: UnsafeRawBufferPointer, into fixes: inout [Fix])
    throws(TraceError)
  {
    try scanner.feed(GPXDecoder.bytes(chunk))
    drain(into: &fixes)
  }

  /// Ends the input; reports a truncated document (see the type's documentation).
  /// - Throws: `TraceError` in strict mode when the document is incomplete.
  public mutating func finish(into fixes: inout [Fix]) throws(TraceError) {
    try scanner.finish()
    drain(into: &fixes)
  }

  /// Decodes `chunk` and appends its complete points, with or without time, to `points`.
  ///
  /// Use either this or the fix form on one decoder, not both. Bad points are skipped (or
  /// thrown) exactly as for fixes; points without a time are delivered, not counted.
  /// - Throws: As `decode(_:into:)` for fixes.
  public mutating func decode(_ chunk: UnsafeRawBufferPointer, into points: inout [GPXPoint])
    throws(TraceError)
  {
    try scanner.feed(GPXDecoder.bytes(chunk))
    points.append(contentsOf: scanner.output)
    scanner.output.removeAll(keepingCapacity: true)
  }

  /// Ends the input of the point form; reports a truncated document as `finish(into:)` does.
  /// - Throws: `TraceError` in strict mode when the document is incomplete.
  public mutating func finish(into points: inout [GPXPoint]) throws(TraceError) {
    try scanner.finish()
    points.append(contentsOf: scanner.output)
    scanner.output.removeAll(keepingCapacity: true)
  }

  private static func bytes(_ chunk: UnsafeRawBufferPointer) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(
      start: chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), count: chunk.count)
  }

  private mutating func drain(into fixes: inout [Fix]) {
    guard !scanner.output.isEmpty else { return }
    for point in scanner.output {
      if point.kind == .waypoint, !includeWaypoints {
        scanner.statistics.skip("waypoint")
      } else if point.time == nil {
        scanner.statistics.skip("no time")
      } else if let fix = point.fix() {
        fixes.append(fix)
        scanner.statistics.fixes += 1
      } else {
        scanner.statistics.skip("no fix")
      }
    }
    scanner.output.removeAll(keepingCapacity: true)
  }
}
