import Foundation
import MissionTracking

/// A streaming decoder of gpsd JSON reports (`gpspipe -w` output), one object per line.
///
/// `TPV` reports with `mode` ≥ 2, a `time` and `lat`/`lon` become fixes: `altMSL` (or the
/// deprecated `alt`) is the altitude, `eph` the horizontal accuracy, `speed` and `track` the
/// velocity. Several TPVs with the same `time` (gpsd often sends two or three per epoch)
/// merge into one fix, later members overwriting earlier ones. Every other class (`SKY`,
/// `VERSION`, `DEVICES`, `WATCH`, …) is skipped and counted as `class NAME`.
///
/// Each line is scanned in place by a small JSON tokenizer — no `JSONSerialization`, no
/// allocation per member — that understands the full object syntax (nested arrays and objects
/// are skipped, strings may hold escapes).
///
/// - Complexity: O(n) in the input bytes; memory is bounded by `maximumLineLength`.
public struct GPSDJSONDecoder: TraceDecoder {
  /// Longest line accepted, in bytes (SKY reports with many satellites are a few KB).
  public static let maximumLineLength = 1 << 16

  /// Counts so far.
  public internal(set) var statistics = TraceStatistics()

  private let file: String?
  private let strict: Bool
  private let source: String
  private var carry: [UInt8] = []
  private var discarding = false
  private var lineNumber = 1
  /// The TPV epoch being merged.
  private var open: Fix?

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
    if let fix = open {
      fixes.append(fix)
      statistics.fixes += 1
      open = nil
    }
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

  /// The members of a TPV this decoder uses.
  private struct Report {
    var className: Range<Int>?
    var mode: Int?
    var time: Range<Int>?
    var latitude: Double?
    var longitude: Double?
    var altitudeMSL: Double?
    var altitude: Double?
    var eph: Double?
    var speed: Double?
    var track: Double?
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
      case "altMSL": if case .number(let v) = value { report.altitudeMSL = v }
      case "alt": if case .number(let v) = value { report.altitude = v }
      case "eph": if case .number(let v) = value { report.eph = v }
      case "speed": if case .number(let v) = value { report.speed = v }
      case "track": if case .number(let v) = value { report.track = v }
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
    let className = String(decoding: UnsafeBufferPointer(rebasing: text[classRange]), as: UTF8.self)
    guard className == "TPV" else {
      statistics.skip("class \(className)")
      return
    }
    guard let mode = report.mode, mode >= 2 else {
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
    let timeText = String(decoding: UnsafeBufferPointer(rebasing: text[timeRange]), as: UTF8.self)
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
    let fixMode: FixMode = mode >= 3 ? .threeD : .twoD
    if var merged = open, merged.time == time {
      merged.coordinate = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
      merged.mode = fixMode
      if let altitude = report.altitudeMSL ?? report.altitude { merged.altitudeMeters = altitude }
      if let eph = report.eph { merged.horizontalAccuracyMeters = eph }
      if let speed = report.speed { merged.speedMetersPerSecond = speed }
      if let track = report.track { merged.courseDegrees = track }
      open = merged
      return
    }
    if let previous = open {
      fixes.append(previous)
      statistics.fixes += 1
    }
    open = Fix(
      time: time, coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
      mode: fixMode, source: source, altitudeMeters: report.altitudeMSL ?? report.altitude,
      horizontalAccuracyMeters: report.eph, speedMetersPerSecond: report.speed,
      courseDegrees: report.track)
  }
}
