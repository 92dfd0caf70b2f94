import TextRules

/// The comma-separated fields of one NMEA sentence, read in place from the input bytes.
///
/// Field 0 is the address (`GPRMC`). `bounds` holds `start, end` offsets into `bytes` (the
/// line) for each field, so no field is ever copied or turned into a `String`. A value of this type only
/// lives inside the `withUnsafeBufferPointer` scope that created it.
struct NMEAFields {
  /// The line holding the sentence.
  let bytes: UnsafeBufferPointer<UInt8>
  /// Pairs of `start, end` offsets, one pair per field.
  let bounds: UnsafeBufferPointer<Int32>

  /// The number of fields, including the address.
  var count: Int { bounds.count / 2 }

  /// The byte range of field `index`, or an empty range when the sentence is shorter.
  @inline(__always)
  func range(_ index: Int) -> Range<Int> {
    guard index < count else { return 0..<0 }
    return Int(bounds[2 * index])..<Int(bounds[2 * index + 1])
  }

  /// Whether field `index` is missing or empty.
  @inline(__always)
  func isEmpty(_ index: Int) -> Bool { range(index).isEmpty }

  /// The first byte of field `index`, or 0 when it is empty.
  @inline(__always)
  func byte(_ index: Int) -> UInt8 {
    let r = range(index)
    return r.isEmpty ? 0 : bytes[r.lowerBound]
  }

  /// The field as text, for error messages only.
  func text(_ index: Int) -> String {
    String(decoding: UnsafeBufferPointer(rebasing: bytes[range(index)]), as: UTF8.self)
  }

  /// A finite decimal number (`-12.345`, `+3`, `.5`; `DecimalText`'s grammar); nil when
  /// empty, not a number or too large to be finite.
  @inline(__always)
  func double(_ index: Int) -> Double? {
    guard let value = DecimalText.parseDouble(bytes, range(index)), value.isFinite else {
      return nil
    }
    return value
  }

  /// An unsigned whole number of at most 9 digits; nil when empty or not digits.
  @inline(__always)
  func int(_ index: Int) -> Int? {
    DecimalText.parseCount(UnsafeBufferPointer(rebasing: bytes[range(index)]))
  }

  /// Time of day `hhmmss[.sss…]` in microseconds; nil when empty or out of range.
  func timeOfDayMicros(_ index: Int) -> Int64? {
    let r = range(index)
    guard r.count >= 6 else { return nil }
    let p0 = r.lowerBound
    guard let hour = twoDigits(p0), let minute = twoDigits(p0 + 2), let second = twoDigits(p0 + 4),
      hour < 24, minute < 60, second <= 60
    else { return nil }
    var whole = (hour * 3600 + minute * 60 + second) * 1_000_000
    var p = p0 + 6
    if p < r.upperBound {
      guard bytes[p] == UInt8(ascii: ".") else { return nil }
      p += 1
      var scale: Int64 = 100_000
      while p < r.upperBound {
        let d = bytes[p] &- 48
        guard d < 10 else { return nil }
        whole += Int64(d) * scale
        scale /= 10
        p += 1
      }
    }
    return whole
  }

  /// The two decimal digits at `offset`, or nil.
  @inline(__always)
  func twoDigits(_ offset: Int) -> Int64? {
    let a = bytes[offset] &- 48
    let b = bytes[offset + 1] &- 48
    guard a < 10, b < 10 else { return nil }
    return Int64(a) * 10 + Int64(b)
  }

  /// `ddmm.mmmm` (latitude, `degreeDigits` 2) or `dddmm.mmmm` (longitude, 3) with its
  /// hemisphere letter in the next field, in signed degrees.
  ///
  /// Computed the way gpsd's output rounds: whole minutes (degrees × 60 + minutes) as an
  /// integer, plus the correctly rounded fraction of a minute, divided by 60 —
  /// `(2494 + 0.49941239) / 60` for `4134.49941239`. `%.9f` of the result prints the same
  /// digits as gpsd's `.chk` files, even for 8-decimal minutes where `deg + min / 60` differs
  /// in the 9th decimal. At most 11 fraction digits are used (0.2 µm).
  /// - Returns: nil when empty; `.nan` when malformed (bad digits, minutes ≥ 60, bad letter).
  func degrees(_ index: Int, negativeLetter: UInt8, positiveLetter: UInt8) -> Double? {
    let r = range(index)
    if r.isEmpty { return nil }
    let hemisphere = byte(index + 1)
    guard hemisphere == negativeLetter || hemisphere == positiveLetter else { return .nan }
    var whole: Int64 = 0
    var p = r.lowerBound
    var wholeDigits = 0
    while p < r.upperBound, bytes[p] != UInt8(ascii: ".") {
      let d = bytes[p] &- 48
      guard d < 10, wholeDigits < 6 else { return .nan }
      whole = whole * 10 + Int64(d)
      wholeDigits += 1
      p += 1
    }
    guard wholeDigits >= 1 else { return .nan }
    var fraction: Int64 = 0
    var fractionDigits = 0
    if p < r.upperBound {
      p += 1
      while p < r.upperBound {
        let d = bytes[p] &- 48
        guard d < 10 else { return .nan }
        if fractionDigits < 11 {
          fraction = fraction * 10 + Int64(d)
          fractionDigits += 1
        }
        p += 1
      }
    }
    let wholeDegrees = whole / 100
    let wholeMinutes = whole % 100
    guard wholeMinutes < 60 else { return .nan }
    let minutesFraction = Double(fraction) / DecimalText.powerOfTen(fractionDigits)
    let value = (Double(wholeDegrees * 60 + wholeMinutes) + minutesFraction) / 60
    return hemisphere == negativeLetter ? -value : value
  }
}
