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

  /// A decimal number (`-12.345`, `+3`, `.5`); nil when empty or not a number.
  func double(_ index: Int) -> Double? { NMEAFields.decimal(bytes, range(index)) }

  /// An unsigned whole number; nil when empty or not digits.
  func int(_ index: Int) -> Int? {
    let r = range(index)
    guard !r.isEmpty, r.count <= 9 else { return nil }
    var value = 0
    for i in r {
      let d = bytes[i] &- 48
      guard d < 10 else { return nil }
      value = value * 10 + Int(d)
    }
    return value
  }

  /// 10^`exponent` for 0...22, all exactly representable, so one division rounds correctly.
  /// A switch of literals: no global array access (and its retain) on the hot path.
  @inline(__always)
  static func powerOfTen(_ exponent: Int) -> Double {
    switch exponent {
    case 0: 1
    case 1: 1e1
    case 2: 1e2
    case 3: 1e3
    case 4: 1e4
    case 5: 1e5
    case 6: 1e6
    case 7: 1e7
    case 8: 1e8
    case 9: 1e9
    case 10: 1e10
    case 11: 1e11
    case 12: 1e12
    case 13: 1e13
    case 14: 1e14
    case 15: 1e15
    case 16: 1e16
    case 17: 1e17
    case 18: 1e18
    case 19: 1e19
    case 20: 1e20
    case 21: 1e21
    default: 1e22
    }
  }

  /// Parses `[+-]digits[.digits]` from `bytes[range]`.
  ///
  /// Up to 18 significant digits are kept exactly in an integer and divided once by an exact
  /// power of ten, so the result is the correctly rounded double for every field NMEA uses.
  static func decimal(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Double? {
    var i = range.lowerBound
    let end = range.upperBound
    guard i < end else { return nil }
    var negative = false
    if bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") {
      negative = bytes[i] == UInt8(ascii: "-")
      i += 1
    }
    var mantissa: UInt64 = 0
    var digits = 0
    var fractionDigits = 0
    var sawDot = false
    var sawDigit = false
    while i < end {
      let b = bytes[i]
      let d = b &- 48
      if d < 10 {
        sawDigit = true
        if digits < 18 {
          mantissa = mantissa * 10 + UInt64(d)
          if mantissa != 0 { digits += 1 }
          if sawDot { fractionDigits += 1 }
        } else if !sawDot {
          return nil  // absurdly large integer part
        }
      } else if b == UInt8(ascii: ".") && !sawDot {
        sawDot = true
      } else {
        return nil
      }
      i += 1
    }
    guard sawDigit else { return nil }
    var value = Double(mantissa)
    while fractionDigits > 22 {
      value /= powerOfTen(22)
      fractionDigits -= 22
    }
    if fractionDigits > 0 { value /= powerOfTen(fractionDigits) }
    return negative ? -value : value
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
    let minutesFraction = Double(fraction) / NMEAFields.powerOfTen(fractionDigits)
    let value = (Double(wholeDegrees * 60 + wholeMinutes) + minutesFraction) / 60
    return hemisphere == negativeLetter ? -value : value
  }
}
