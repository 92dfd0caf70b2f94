import Foundation
import MissionTracking

/// A streaming NMEA 0183 decoder: text in chunks of any size, one `Fix` per epoch out.
///
/// Reads RMC, GGA, GLL, GNS, GSA, VTG, ZDA and GST from any two-letter talker (GP, GN, GL, GA,
/// GB, BD, QZ, IN, …), including NMEA 2.3 mode and 4.1 navigation-status fields and sentences
/// longer than the standard's 82 characters (up to `maximumLineLength`). All sentences with the
/// same time of day form one epoch and become **one** fix carrying position, altitude,
/// accuracy, speed, course, mode and satellites; GSA and VTG, which carry no time, join the
/// open epoch.
///
/// Policies:
/// - **Checksum.** A sentence whose `*hh` checksum does not match is skipped (`bad checksum`).
///   A sentence without a checksum is accepted and counted as a warning (`no checksum`), as
///   gpsd and GPSBabel do: some loggers never write one.
/// - **Resynchronisation.** A sentence starts at the last `$` or `!` of a line, so garbage,
///   a partial first line or a collision (`$GPGSV,…$PTNTA,…`) costs only that line. A line
///   with no `$`/`!` is skipped as `not NMEA`; lines starting with `#` are comments.
/// - **No fix is never a position.** RMC/GLL status `V`, a mode indicator `N`, GGA quality 0
///   or fewer than 3 satellites in use (gpsd 3.22's `processGGA` rule), a GNS mode of all `N`,
///   or empty latitude/longitude never give a fix. RMC's NMEA 4.1 navigational status (the
///   field after the mode) is ignored, as gpsd's `processRMC` does.
/// - **Coordinates** are converted exactly as gpsd's regression output rounds them (see
///   `NMEAFields.degrees`); minutes ≥ 60 or a bad hemisphere letter is a bad field.
/// - **Two-digit years** (RMC) are 1980–2079: `yy ≥ 80` is 19yy, else 20yy (the GPS epoch is
///   1980). After a ZDA with a four-digit year, its century is used instead.
/// - **GPS week rollover.** Dates are taken as written unless `rollover` is given: then a
///   date before its pivot moves forward by whole 1024-week eras (see `NMEAWeekRollover`);
///   each corrected fix counts the warning `"GPS week rollover corrected"`. Live sources use
///   `NMEADecoder.live(file:source:now:)`, which corrects to within 512 weeks of the clock.
/// - **Dates** are carried to time-only epochs, across midnight, and back-filled (see
///   `NMEADateCarrier`); `fallbackDate` dates a log that has no RMC or ZDA at all.
/// - **Accuracy** (`horizontalAccuracyMeters`): from GST when present, 2DRMS =
///   2·√(σlat² + σlon²); else HDOP × UERE with gpsd's UERE (19 m, 4.75 m with DGPS/RTK), which
///   is gpsd's `eph`.
///
/// In lenient mode (the default) a bad record is skipped and counted by reason in
/// `statistics`; in strict mode it throws a `TraceError` with the file and line.
///
/// - Complexity: O(n) in the input bytes; memory is bounded by `maximumLineLength` plus the
///   undated fixes kept for back-filling (at most `NMEADateCarrier.pendingLimit`).
public struct NMEADecoder: TraceDecoder {
  /// Longest line accepted, in bytes; longer lines are skipped as `line too long`.
  public static let maximumLineLength = 4096

  /// Counts so far.
  public internal(set) var statistics = TraceStatistics()

  let file: String?
  let strict: Bool
  let source: String

  /// Bytes of an incomplete line carried to the next chunk.
  var carry: [UInt8] = []
  /// Set while skipping the rest of an over-long line.
  var discardingLongLine = false
  /// The 1-based number of the line being read.
  var lineNumber = 1
  /// Field offsets of the current sentence (`start, end` pairs), reused.
  var bounds = [Int32](repeating: 0, count: 2 * NMEADecoder.maximumFields)

  /// The epoch the last timed sentence belonged to (valid when `hasEpoch`); GSA and VTG,
  /// which carry no time, join it.
  var epoch = NMEAEpoch(timeOfDayMicros: 0, line: 0, sequence: 0)
  /// Whether `epoch` is open.
  var hasEpoch = false
  /// Earlier epochs still open, in arrival order: they wait for late sentences of
  /// out-of-order logs until `maximumOpenEpochs` epochs are open.
  var olderEpochs: [NMEAEpoch] = []
  /// Counts epochs, to keep arrival order.
  var epochSequence = 0
  /// The most epochs open at once; a fix is emitted when the epoch two places later opens.
  static let maximumOpenEpochs = 3
  /// Gives epochs their calendar day.
  var dates: NMEADateCarrier
  /// Century for two-digit years, once a ZDA told it.
  var century: Int?
  /// The GPS week-rollover correction, when asked for.
  let rollover: NMEAWeekRollover?
  /// The warning counted for each fix whose date the rollover correction moved.
  public static let rolloverWarning = "GPS week rollover corrected"

  /// Creates a decoder.
  /// - Parameters:
  ///   - file: The path, for error messages (`-` for standard input).
  ///   - strict: Throw at the first bad record instead of skipping it.
  ///   - fallbackDate: The UTC day to use for epochs before any RMC/ZDA date (`--date`).
  ///   - source: The `source` of the fixes produced.
  ///   - rollover: The GPS week-rollover correction (`--rollover-after`); nil keeps dates as
  ///     written.
  public init(
    file: String? = nil, strict: Bool = false, fallbackDate: Date? = nil, source: String = "nmea",
    rollover: NMEAWeekRollover? = nil
  ) {
    self.file = file
    self.strict = strict
    self.source = source
    self.rollover = rollover
    var fallbackDay: Int?
    if let fallbackDate {
      fallbackDay = Int((fallbackDate.timeIntervalSince1970 / 86_400).rounded(.down))
    }
    dates = NMEADateCarrier(fallbackDay: fallbackDay)
    olderEpochs.reserveCapacity(NMEADecoder.maximumOpenEpochs + 1)
  }

  /// Decodes `chunk` and appends the fixes of every epoch it completes to `fixes`.
  /// - Throws: `TraceError` at the first bad record in strict mode, after closing the epochs
  ///   still open, so every fix before the bad record is delivered.
  /// - Complexity: O(`chunk.count`).
  public mutating func decode(_ chunk: UnsafeRawBufferPointer, into fixes: inout [Fix])
    throws(TraceError)
  {
    do {
      try decodeLines(chunk, into: &fixes)
    } catch {
      closeAllEpochs(into: &fixes)
      throw error
    }
  }

  private mutating func decodeLines(_ chunk: UnsafeRawBufferPointer, into fixes: inout [Fix])
    throws(TraceError)
  {
    guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), chunk.count > 0
    else { return }
    let count = chunk.count
    var start = 0
    while start < count {
      let remaining = count - start
      let found = memchr(base + start, 0x0A, remaining)
      guard let found else {
        appendToCarry(UnsafeBufferPointer(start: base + start, count: remaining))
        return
      }
      let end = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
      if carry.isEmpty && !discardingLongLine {
        try line(UnsafeBufferPointer(start: base + start, count: end - start), into: &fixes)
      } else {
        appendToCarry(UnsafeBufferPointer(start: base + start, count: end - start))
        try flushCarry(into: &fixes)
      }
      lineNumber += 1
      start = end + 1
    }
  }

  /// Decodes a final line without a newline and closes the last epoch.
  /// - Throws: `TraceError` for a bad last record in strict mode.
  public mutating func finish(into fixes: inout [Fix]) throws(TraceError) {
    defer { closeAllEpochs(into: &fixes) }
    if !carry.isEmpty || discardingLongLine { try flushCarry(into: &fixes) }
    closeAllEpochs(into: &fixes)
    let undated = dates.dropPending() + dates.droppedUndated
    if undated > 0 {
      statistics.skipped["no date (use --date)", default: 0] += undated
    }
  }

  private mutating func appendToCarry(_ bytes: UnsafeBufferPointer<UInt8>) {
    if discardingLongLine { return }
    if carry.count + bytes.count > NMEADecoder.maximumLineLength {
      discardingLongLine = true
      carry.removeAll(keepingCapacity: true)
      return
    }
    carry.append(contentsOf: bytes)
  }

  private mutating func flushCarry(into fixes: inout [Fix]) throws(TraceError) {
    if discardingLongLine {
      discardingLongLine = false
      carry.removeAll(keepingCapacity: true)
      statistics.recordsRead += 1
      try reject("line too long", detail: "over \(NMEADecoder.maximumLineLength) bytes")
      return
    }
    let line = carry
    carry.removeAll(keepingCapacity: true)
    try line.withUnsafeBufferPointer { (buffer) throws(TraceError) in
      try self.line(buffer, into: &fixes)
    }
  }

  /// Counts a skipped record, or throws in strict mode.
  mutating func reject(_ reason: String, detail: String? = nil) throws(TraceError) {
    statistics.skip(reason)
    if strict {
      throw TraceError(
        file: file, line: lineNumber, reason: detail.map { "\(reason): \($0)" } ?? reason)
    }
  }

  /// Handles one line (without its `\n`), which may hold several `\r`-separated sentences.
  private mutating func line(_ text: UnsafeBufferPointer<UInt8>, into fixes: inout [Fix])
    throws(TraceError)
  {
    if text.count > NMEADecoder.maximumLineLength {
      statistics.recordsRead += 1
      try reject("line too long", detail: "\(text.count) bytes")
      return
    }
    guard let base = text.baseAddress, text.count > 1,
      memchr(base, 0x0D, text.count - 1) != nil
    else {
      try record(text, into: &fixes)
      return
    }
    var start = 0
    for i in 0..<text.count where text[i] == 0x0D {
      try record(UnsafeBufferPointer(rebasing: text[start..<i]), into: &fixes)
      start = i + 1
    }
    if start < text.count {
      try record(UnsafeBufferPointer(rebasing: text[start..<text.count]), into: &fixes)
    }
  }

  /// Where the sentence of a line is, its checksum, and how many fields it has.
  struct Scan {
    /// Offset of the first byte after `$`/`!`.
    var bodyStart: Int
    /// Offset of `*`, or of the end of the line when there is no checksum.
    var bodyEnd: Int
    /// Whether a `*` was found.
    var hasChecksum: Bool
    /// XOR of the body bytes.
    var checksum: UInt8
    /// Fields written to the bounds buffer.
    var fieldCount: Int
  }

  /// The most fields recorded per sentence; further commas stay inside the last field.
  static let maximumFields = 64

  /// One pass over a line from its first `$`/`!`: checksum, field boundaries (absolute
  /// offsets into `text`) and `*`. A later `$` or `!` restarts the sentence there, so a
  /// collision (`$GPGSV,…$PTNTA,…`) resynchronises on the last sentence start.
  static func scan(
    _ text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int,
    bounds: UnsafeMutableBufferPointer<Int32>
  ) -> Scan {
    var bodyStart = start + 1
    var fieldStart = bodyStart
    var count = 0
    var checksum: UInt8 = 0
    var i = bodyStart
    var star = -1
    while i < end {
      let c = text[i]
      if c == 0x2A {
        star = i
        break
      }
      if c == 0x2C {
        if count < maximumFields - 1 {
          bounds[2 * count] = Int32(fieldStart)
          bounds[2 * count + 1] = Int32(i)
          count += 1
          fieldStart = i + 1
        }
      } else if c == 0x24 || c == 0x21 {
        bodyStart = i + 1
        fieldStart = bodyStart
        count = 0
        checksum = 0
        i += 1
        continue
      }
      checksum ^= c
      i += 1
    }
    let bodyEnd = star >= 0 ? star : end
    bounds[2 * count] = Int32(fieldStart)
    bounds[2 * count + 1] = Int32(bodyEnd)
    return Scan(
      bodyStart: bodyStart, bodyEnd: bodyEnd, hasChecksum: star >= 0, checksum: checksum,
      fieldCount: count + 1)
  }

  /// Finds the sentence in one line, checks it and dispatches it by type.
  private mutating func record(_ text: UnsafeBufferPointer<UInt8>, into fixes: inout [Fix])
    throws(TraceError)
  {
    var first = 0
    var last = text.count
    while first < last, text[first] <= 0x20 { first += 1 }
    while last > first, text[last - 1] <= 0x20 { last -= 1 }
    if first == last { return }
    if text[first] == UInt8(ascii: "#") { return }
    statistics.recordsRead += 1
    var start = first
    while start < last, text[start] != UInt8(ascii: "$"), text[start] != UInt8(ascii: "!") {
      start += 1
    }
    if start == last {
      try reject("not NMEA")
      return
    }
    let scan = bounds.withUnsafeMutableBufferPointer { buffer in
      NMEADecoder.scan(text, from: start, to: last, bounds: buffer)
    }
    if scan.bodyStart > first + 1 { statistics.warn("garbage before sentence") }
    if scan.hasChecksum {
      let star = scan.bodyEnd
      guard last - star == 3, let high = NMEADecoder.hexValue(text[star + 1]),
        let low = NMEADecoder.hexValue(text[star + 2])
      else {
        try reject("bad checksum", detail: "malformed checksum field")
        return
      }
      let expected = high << 4 | low
      if expected != scan.checksum {
        try reject(
          "bad checksum",
          detail: "*\(NMEADecoder.hex(expected)), computed *\(NMEADecoder.hex(scan.checksum))")
        return
      }
    } else {
      statistics.warn("no checksum")
    }
    // A local reference (no copy of the storage) so the closure may mutate `self`.
    let fieldBounds = bounds
    try fieldBounds.withUnsafeBufferPointer { (buffer) throws(TraceError) in
      let fields = NMEAFields(
        bytes: text, bounds: UnsafeBufferPointer(rebasing: buffer[0..<(2 * scan.fieldCount)]))
      try sentence(fields, into: &fixes)
    }
  }

  static func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case 0x30...0x39: b - 0x30
    case 0x41...0x46: b - 0x41 + 10
    case 0x61...0x66: b - 0x61 + 10
    default: nil
    }
  }

  static func hex(_ value: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(value >> 4)], digits[Int(value & 15)]])
  }
}
