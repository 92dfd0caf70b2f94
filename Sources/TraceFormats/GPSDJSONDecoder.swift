import Foundation
import MissionTracking
import TextRules

/// A streaming decoder of gpsd JSON reports, one object per line: `gpspipe -w` logs, and the
/// live gpsd source's socket (the same code decodes both, so a report gives the same fix
/// whether it was recorded or received).
///
/// `TPV` reports with `mode` ≥ 2, a `time` and `lat`/`lon` become fixes. Several TPVs with the
/// same `time` (gpsd often sends two or three per epoch) are one epoch: each member a later
/// report carries replaces the earlier value, members it lacks are kept. The epoch's fix is
/// released when a TPV with another time or a no-fix TPV (mode 0 or 1) arrives, or at the end.
/// From the merged members: `altMSL` (or the deprecated `alt`) is the altitude, in 3D fixes
/// only; `eph`, else the larger of `epx` and `epy`, the horizontal accuracy; `speed` and
/// `track` (normalised to [0, 360)) the velocity. Every other class (`SKY`, `VERSION`,
/// `DEVICES`, `WATCH`, …) is skipped and counted as `class NAME`.
///
/// **Hostile values.** A member whose number is not finite or overflows (`1e400`), or whose
/// magnitude reaches `largestPlausibleMagnitude`, is absent, as is a negative error estimate
/// (`eph`, `epx`, `epy`) or speed: no fix ever carries infinity, NaN or 1e308.
///
/// Each line is scanned in place by a small JSON tokenizer — no `JSONSerialization`, no
/// allocation per member — that understands the full object syntax (nested arrays and objects
/// are skipped, strings may hold escapes).
///
/// - Complexity: O(n) in the input bytes; memory is bounded by `maximumLineLength`.
public struct GPSDJSONDecoder: TraceDecoder {
  /// Longest line accepted, in bytes (SKY reports with many satellites are a few KB).
  public static let maximumLineLength = 1 << 16

  /// Numbers of this magnitude or more are read as overflows (absent): no receiver reports a
  /// million kilometres, and such values would print in exponent form.
  public static let largestPlausibleMagnitude = 1e9

  /// Counts so far.
  public internal(set) var statistics = TraceStatistics()

  /// TPV reports folded into the open epoch of the same time.
  public private(set) var mergedReports = 0

  /// What the last complete line told beyond fixes, for a live reader; see `takeNote()`.
  package enum Note: Sendable, Equatable {
    /// A TPV with mode 0 (not seen) or 1 (no fix).
    case noFix(mode: Int)
    /// A `DEVICE` report: gpsd opened (`activated` true) or closed the device at `path`.
    case device(path: String, activated: Bool)
  }

  private let file: String?
  private let strict: Bool
  private let source: String
  private var carry: [UInt8] = []
  private var discarding = false
  private var lineNumber = 1
  /// The TPV epoch being merged.
  private var open: Members?
  private var note: Note?

  /// Creates a decoder.
  /// - Parameters:
  ///   - file: The path, for error messages.
  ///   - strict: Throw at the first bad line instead of skipping it.
  ///   - source: The `source` of the fixes produced.
  public init(file: String? = nil, strict: Bool = false, source: String = "gpsd") {
    self.file = file
    self.strict = strict
    self.source = source
  }

  /// Decodes `chunk` and appends the fixes of the epochs it completes.
  /// - Throws: `TraceError` at the first bad line in strict mode.
  public mutating func decode(_ chunk: UnsafeRawBufferPointer, into fixes: inout [Fix])
    throws(TraceError)
  {
    let bytes = chunk.bindMemory(to: UInt8.self)
    var start = 0
    while start < bytes.count {
      var end = start
      while end < bytes.count, bytes[end] != 0x0A { end += 1 }
      if end == bytes.count {
        append(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        return
      }
      if carry.isEmpty && !discarding {
        try line(UnsafeBufferPointer(rebasing: bytes[start..<end]), into: &fixes)
      } else {
        append(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        try flushCarry(into: &fixes)
      }
      lineNumber += 1
      start = end + 1
    }
  }

  /// Decodes a last line without a newline and emits the open epoch.
  public mutating func finish(into fixes: inout [Fix]) throws(TraceError) {
    if !carry.isEmpty || discarding { try flushCarry(into: &fixes) }
    releaseOpenEpoch(into: &fixes)
  }

  /// Whether an epoch is open (its fix is held back until the epoch ends).
  package var hasOpenEpoch: Bool { open != nil }

  /// Releases the open epoch's fix now (a live reader whose line went quiet).
  package mutating func releaseOpenEpoch(into fixes: inout [Fix]) {
    guard let members = open else { return }
    open = nil
    fixes.append(members.fix(source: source))
    statistics.fixes += 1
  }

  /// Returns and forgets what the last complete line told beyond fixes.
  package mutating func takeNote() -> Note? {
    defer { note = nil }
    return note
  }

  private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
    if discarding { return }
    if carry.count + bytes.count > GPSDJSONDecoder.maximumLineLength {
      discarding = true
      carry.removeAll(keepingCapacity: true)
    } else {
      carry.append(contentsOf: bytes)
    }
  }

  private mutating func flushCarry(into fixes: inout [Fix]) throws(TraceError) {
    if discarding {
      discarding = false
      statistics.recordsRead += 1
      try reject("line too long")
      return
    }
    let text = carry
    carry.removeAll(keepingCapacity: true)
    try text.withUnsafeBufferPointer { (buffer) throws(TraceError) in
      try line(buffer, into: &fixes)
    }
  }

  private mutating func reject(_ reason: String, detail: String? = nil) throws(TraceError) {
    statistics.skip(reason)
    if strict {
      throw TraceError(
        file: file, line: lineNumber, reason: detail.map { "\(reason): \($0)" } ?? reason)
    }
  }

  /// The members of one report this decoder uses, as scanned.
  private struct Report {
    var className: Range<Int>?
    var mode: Int?
    var time: Range<Int>?
    var latitude: Double?
    var longitude: Double?
    var altitudeMSL: Double?
    /// `alt` (deprecated) in `altitude`; `altMSL` wins over it.
    var measures = Measures()
    var path: Range<Int>?
    var activated: Bool?
  }

  /// The optional members of a TPV, each absent unless plausible.
  private struct Measures {
    var altitude: Double?
    var eph: Double?
    var epx: Double?
    var epy: Double?
    var speed: Double?
    var track: Double?

    /// These measures with every value `later` carries replacing the earlier one.
    func updated(by later: Measures) -> Measures {
      Measures(
        altitude: later.altitude ?? altitude, eph: later.eph ?? eph, epx: later.epx ?? epx,
        epy: later.epy ?? epy, speed: later.speed ?? speed, track: later.track ?? track)
    }
  }

  /// A plausible number: finite and below `largestPlausibleMagnitude`; anything else is
  /// absent.
  private static func plausible(_ value: JSONLineScanner.Value) -> Double? {
    guard case .number(let number) = value, number.isFinite,
      number.magnitude < largestPlausibleMagnitude
    else { return nil }
    return number
  }

  /// A plausible number that is not negative (error estimates, speed).
  private static func plausibleMagnitude(_ value: JSONLineScanner.Value) -> Double? {
    plausible(value).flatMap { $0 >= 0 ? $0 : nil }
  }

  private mutating func line(_ text: UnsafeBufferPointer<UInt8>, into fixes: inout [Fix])
    throws(TraceError)
  {
    var scanner = JSONLineScanner(bytes: text)
    scanner.skipSpace()
    if scanner.atEnd { return }
    statistics.recordsRead += 1
    var report = Report()
    let parsed = scanner.object { key, value in
      switch key {
      case "class": if case .string(let r) = value { report.className = r }
      case "mode": if case .number(let v) = value { report.mode = Int(exactly: v) }
      case "time": if case .string(let r) = value { report.time = r }
      case "lat": if case .number(let v) = value { report.latitude = v }
      case "lon": if case .number(let v) = value { report.longitude = v }
      case "altMSL": report.altitudeMSL = Self.plausible(value)
      case "alt": report.measures.altitude = Self.plausible(value)
      case "eph": report.measures.eph = Self.plausibleMagnitude(value)
      case "epx": report.measures.epx = Self.plausibleMagnitude(value)
      case "epy": report.measures.epy = Self.plausibleMagnitude(value)
      case "speed": report.measures.speed = Self.plausibleMagnitude(value)
      case "track": report.measures.track = Self.plausible(value)
      case "path": if case .string(let r) = value { report.path = r }
      case "activated":
        switch value {
        case .number(let v): report.activated = v != 0
        case .string: report.activated = true
        default: break
        }
      default: break
      }
    }
    guard parsed else {
      try reject("bad JSON", detail: "column \(scanner.position + 1)")
      return
    }
    guard let classRange = report.className else {
      try reject("no class")
      return
    }
    let className = Self.text(text, classRange)
    guard className == "TPV" else {
      if className == "DEVICE", let path = report.path, let activated = report.activated {
        note = .device(path: Self.text(text, path), activated: activated)
      }
      statistics.skip("class \(className)")
      return
    }
    try tpv(report, text, into: &fixes)
  }

  private mutating func tpv(
    _ report: Report, _ text: UnsafeBufferPointer<UInt8>, into fixes: inout [Fix]
  ) throws(TraceError) {
    guard let mode = report.mode, mode >= 2 else {
      // The receiver lost its fix: the epoch before it is complete.
      releaseOpenEpoch(into: &fixes)
      note = .noFix(mode: report.mode ?? 0)
      statistics.skip("no fix")
      return
    }
    guard let latitude = report.latitude, let longitude = report.longitude else {
      statistics.skip("no position")
      return
    }
    guard let timeRange = report.time else {
      statistics.skip("no time")
      return
    }
    let timeText = Self.text(text, timeRange)
    guard let (time, _) = UTCTime.parse(timeText) else {
      try reject("bad time", detail: timeText)
      return
    }
    guard latitude.isFinite, latitude.magnitude <= 90, longitude.isFinite,
      longitude.magnitude <= 180
    else {
      try reject("bad position", detail: "\(latitude), \(longitude)")
      return
    }
    var measures = report.measures
    measures.altitude = report.altitudeMSL ?? measures.altitude
    let members = Members(
      time: time, mode: mode, latitude: latitude, longitude: longitude, measures: measures)
    if let current = open, current.time == time {
      open = current.updated(by: members)
      mergedReports += 1
      return
    }
    releaseOpenEpoch(into: &fixes)
    open = members
  }

  private static func text(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
  }

  /// The merged members of one TPV epoch.
  private struct Members {
    var time: Date
    var mode: Int
    var latitude: Double
    var longitude: Double
    var measures: Measures

    /// `later`'s time, mode and position, with every measure `later` lacks kept from these.
    func updated(by later: Members) -> Members {
      var merged = later
      merged.measures = measures.updated(by: later.measures)
      return merged
    }

    func fix(source: String) -> Fix {
      let threeD = mode >= 3
      var accuracy = measures.eph
      if accuracy == nil {
        accuracy = [measures.epx, measures.epy].compactMap { $0 }.max()
      }
      var course: Double?
      if let track = measures.track {
        // `+ 0` turns -0 into 0; a tiny negative remainder plus 360 may round to 360.
        var normalised = track.truncatingRemainder(dividingBy: 360) + 0
        if normalised < 0 { normalised += 360 }
        course = normalised < 360 ? normalised : 0
      }
      return Fix(
        time: time, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
        mode: threeD ? .threeD : .twoD, source: source,
        altitudeMeters: threeD ? measures.altitude : nil, horizontalAccuracyMeters: accuracy,
        speedMetersPerSecond: measures.speed, courseDegrees: course)
    }
  }
}
