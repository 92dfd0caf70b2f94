import Foundation
import MissionTracking

/// A streaming GPX 1.0 / 1.1 reader: chunks of a GPX document in, fixes (or points) out.
///
/// What becomes a fix: every `<trkpt>` and `<rtept>`, in document order, that has a `<time>`
/// and does not say `<fix>none</fix>`; `<wpt>` too when `includeWaypoints` is set (waypoints
/// are usually places, not a trace). Nothing is ever invented: in the fix form a point without
/// a time is skipped and counted as `"no time"`. Three forms read the same document:
/// - fixes (`decode(_:into:)` for `[Fix]`): timed points only, what replay uses;
/// - records (`[TraceRecord]`): every point of every kind in document order, timed track
///   points as `.fix`, timed waypoints and route points as `.nonTrackFix` with their kind, and
///   untimed ones as `.untimed(GPXPoint)`, counted in `statistics.untimedPoints` (what
///   `missiontrack decode` prints);
/// - points (`[GPXPoint]`): every point as written, with its optional time, track and segment
///   (for giving an untimed route times along the path).
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
/// - Limits (`XMLTokenizer`): an element nested deeper than 256, with a name over 1024 bytes
///   or a tag over 1 MiB is skipped whole in lenient mode and counted by reason (`"element
///   nested deeper than 256"`, `"tag longer than 1048576 bytes"`, …); what follows it is read
///   as usual. Strict mode throws.
///
/// Errors name the file, line and column (1-based; the column counts bytes). Lenient mode
/// (the default) skips a bad point and counts it by reason (`"missing lat"`,
/// `"latitude out of range"`, `"bad time"`, …); a bad optional value (`<ele>`, `<hdop>`, …)
/// is dropped with a warning and the point kept. Strict mode throws at the first of either,
/// after delivering every point completed before it. XML that is not well-formed throws in
/// both modes, because what follows cannot be trusted.
/// A document that ends early (truncated, missing `</gpx>`) throws from `finish` in strict
/// mode; in lenient mode the fixes before it stand, `finish` returns normally, the warning
/// `"truncated document at LINE:COLUMN (reason)"` is counted (so a generic summary shows
/// it), an unfinished point is skipped as `"truncated document"`, and `truncation` holds the
/// located error.
public struct GPXDecoder: TraceDecoder {
  private var tokenizer: XMLTokenizer
  private var mapping: GPXMapping
  private let strict: Bool
  private let includeWaypoints: Bool
  /// The error that stopped the decoder; it is thrown again on any later call.
  private var failure: TraceError?

  /// Creates a decoder.
  /// - Parameters:
  ///   - file: The path shown in errors (`-` for standard input), or nil.
  ///   - strict: Throw at the first bad point or value instead of skipping it.
  ///   - includeWaypoints: Turn timed `<wpt>`s into fixes too (otherwise they are counted as
  ///     skipped with reason `"waypoint"`). The record and point forms always include them.
  public init(file: String? = nil, strict: Bool = false, includeWaypoints: Bool = false) {
    tokenizer = XMLTokenizer(file: file, strict: strict)
    mapping = GPXMapping(strict: strict)
    self.strict = strict
    self.includeWaypoints = includeWaypoints
  }

  /// Counts so far: `recordsRead` counts every point element read.
  public var statistics: TraceStatistics { mapping.statistics }

  /// In lenient mode, where and how the document ended too early; nil for a complete one.
  public private(set) var truncation: TraceError?

  /// Decodes `chunk` and appends the fixes its complete points make to `fixes`.
  /// - Throws: `TraceError` for XML that is not well-formed or is not GPX, or (strict) for a
  ///   bad point or value; the fixes completed before the error are appended first.
  /// - Complexity: O(n) in the chunk size.
  public mutating func decode(_ chunk: UnsafeRawBufferPointer, into fixes: inout [Fix])
    throws(TraceError)
  {
    defer { drain(into: &fixes) }
    try feed(chunk)
  }

  /// Ends the input; reports a truncated document (see the type's documentation).
  /// - Throws: `TraceError` in strict mode when the document is incomplete.
  public mutating func finish(into fixes: inout [Fix]) throws(TraceError) {
    defer { drain(into: &fixes) }
    try end()
  }

  /// Decodes `chunk` and appends every complete point as a record: a fix when it has a time
  /// (`.fix` for a track point, `.nonTrackFix` for a waypoint or route point), else `.untimed`
  /// (counted in `statistics.untimedPoints`). Waypoints are included; points that say
  /// `<fix>none</fix>` are skipped as `"no fix"`.
  /// - Throws: As `decode(_:into:)` for fixes.
  public mutating func decode(_ chunk: UnsafeRawBufferPointer, into records: inout [TraceRecord])
    throws(TraceError)
  {
    defer { drain(into: &records) }
    try feed(chunk)
  }

  /// Ends the input of the record form; reports a truncated document as `finish(into:)` does.
  /// - Throws: `TraceError` in strict mode when the document is incomplete.
  public mutating func finish(into records: inout [TraceRecord]) throws(TraceError) {
    defer { drain(into: &records) }
    try end()
  }

  /// Decodes `chunk` and appends its complete points, with or without time, to `points`.
  ///
  /// Use one form per decoder. Bad points are skipped (or thrown) exactly as for fixes; points
  /// without a time are delivered, not counted.
  /// - Throws: As `decode(_:into:)` for fixes.
  public mutating func decode(_ chunk: UnsafeRawBufferPointer, into points: inout [GPXPoint])
    throws(TraceError)
  {
    defer {
      points.append(contentsOf: mapping.output)
      mapping.output.removeAll(keepingCapacity: true)
    }
    try feed(chunk)
  }

  /// Ends the input of the point form; reports a truncated document as `finish(into:)` does.
  /// - Throws: `TraceError` in strict mode when the document is incomplete.
  public mutating func finish(into points: inout [GPXPoint]) throws(TraceError) {
    defer {
      points.append(contentsOf: mapping.output)
      mapping.output.removeAll(keepingCapacity: true)
    }
    try end()
  }

  private mutating func feed(_ chunk: UnsafeRawBufferPointer) throws(TraceError) {
    if let failure { throw failure }
    let bytes = UnsafeBufferPointer(
      start: chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), count: chunk.count)
    do throws(TraceError) {
      try tokenizer.feed(bytes, to: &mapping)
    } catch {
      failure = error
      throw error
    }
  }

  private mutating func end() throws(TraceError) {
    if let failure { throw failure }
    guard let error = tokenizer.truncation() else { return }
    if strict {
      failure = error
      throw error
    }
    truncation = error
    // The place goes into the warning, so a generic summary shows where the input ended.
    mapping.statistics.warn(
      "truncated document at \(error.line ?? 0):\(error.column ?? 0) (\(error.reason))")
    mapping.abandonOpenPoint()
  }

  private mutating func drain(into fixes: inout [Fix]) {
    guard !mapping.output.isEmpty else { return }
    for point in mapping.output {
      if point.kind == .waypoint, !includeWaypoints {
        mapping.statistics.skip("waypoint")
      } else if point.time == nil {
        mapping.statistics.skip("no time")
      } else if let fix = point.fix() {
        fixes.append(fix)
        mapping.statistics.fixes += 1
      } else {
        mapping.statistics.skip("no fix")
      }
    }
    mapping.output.removeAll(keepingCapacity: true)
  }

  private mutating func drain(into records: inout [TraceRecord]) {
    guard !mapping.output.isEmpty else { return }
    for point in mapping.output {
      if point.fixMode == .noFix {
        mapping.statistics.skip("no fix")
      } else if let fix = point.fix() {
        records.append(point.kind == .trackPoint ? .fix(fix) : .nonTrackFix(fix, kind: point.kind))
        mapping.statistics.fixes += 1
      } else {
        records.append(.untimed(point))
        mapping.statistics.untimedPoints += 1
      }
    }
    mapping.output.removeAll(keepingCapacity: true)
  }
}
