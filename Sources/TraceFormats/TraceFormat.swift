/// The trace formats the readers know, recognised from content rather than the file name.
public enum TraceFormat: String, Sendable, Hashable, CaseIterable {
  /// NMEA 0183 sentences (`$GPRMC,…`, `!AIVDM,…`), one per line.
  case nmea
  /// gpsd JSON reports, one object per line (the output of `gpspipe -w`).
  case gpsdJSON = "gpsd-json"
  /// GPX 1.0 or 1.1 (XML).
  case gpx

  /// Recognises the format from the first bytes of a trace.
  ///
  /// Skips a UTF-8 byte-order mark, blank lines, `#` comment lines (gpsd's logs start with
  /// them) and free-text lines (some loggers write a header; a log may start mid-sentence).
  /// The first line that starts with `<` is GPX, with `{` and holding `"class"` is gpsd JSON,
  /// with `$` or `!` is NMEA.
  /// - Parameters:
  ///   - prefix: The first bytes of the trace (a few kilobytes are plenty).
  ///   - isComplete: Whether `prefix` is the whole trace (so a partial last line counts).
  /// - Returns: The format, or nil when the prefix does not tell (yet).
  /// - Complexity: O(`prefix.count`).
  static func detect(in prefix: UnsafeRawBufferPointer, isComplete: Bool = false)
    -> TraceFormat?
  {
    let bytes = prefix.bindMemory(to: UInt8.self)
    var i = 0
    if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
    while i < bytes.count {
      while i < bytes.count,
        bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0D
          || bytes[i] == 0x0A
      {
        i += 1
      }
      guard i < bytes.count else { return nil }
      var end = i
      while end < bytes.count, bytes[end] != 0x0A { end += 1 }
      let lineIsComplete = end < bytes.count || isComplete
      switch bytes[i] {
      case UInt8(ascii: "<"): return .gpx
      case UInt8(ascii: "$"), UInt8(ascii: "!"): return .nmea
      case UInt8(ascii: "{"):
        if contains(bytes, i..<end, "\"class\"") { return .gpsdJSON }
        if !lineIsComplete { return nil }
      default:
        if !lineIsComplete { return nil }
      }
      i = end + 1
    }
    return nil
  }

  private static func contains(
    _ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ needle: StaticString
  ) -> Bool {
    let n = needle.utf8CodeUnitCount
    guard range.count >= n else { return false }
    let needleBytes = UnsafeBufferPointer(start: needle.utf8Start, count: n)
    var i = range.lowerBound
    while i + n <= range.upperBound {
      if bytes[i] == needleBytes[0] {
        var k = 1
        while k < n, bytes[i + k] == needleBytes[k] { k += 1 }
        if k == n { return true }
      }
      i += 1
    }
    return false
  }
}
