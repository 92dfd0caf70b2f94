import Foundation

/// Decimal numbers as text, both ways, without `String` round trips: the one grammar every
/// reader uses (GPX, NMEA, gpsd JSON, mission files, query strings, command-line options)
/// and the hot path of the writers.
///
/// The grammar is `[+-]digits[.digits][(e|E)[+-]digits]` with at least one digit in the
/// mantissa (`.5` and `5.` are numbers); `nan`, `inf`, hexadecimal (`0x10`, which
/// `Double(_:)` alone takes) and white space are not. `Double(decimalText:)` is its face for
/// `String`s and also refuses values too large to be finite.
package enum DecimalText {
  /// 10^`exponent` for 0...22, all exactly representable, so one division rounds correctly.
  /// A switch of literals: no global array access (and its retain) on the hot path.
  @inline(__always)
  package static func powerOfTen(_ exponent: Int) -> Double {
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

  /// The number written in `bytes[range]` (see `parseDouble(_:)`), read in place: an NMEA
  /// field or a gpsd JSON value.
  @inline(__always)
  package static func parseDouble(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>)
    -> Double?
  {
    parseDouble(UnsafeBufferPointer(rebasing: bytes[range]))
  }

  /// Parses the grammar above: `[+-]digits[.digits][(e|E)[+-]digits]`.
  ///
  /// Correctly rounded: up to 15 significant digits with a small exponent take the exact fast
  /// path (W. D. Clinger, "How to Read Floating Point Numbers Accurately", PLDI 1990); longer
  /// inputs go to the C library's `strtod`. A value too large for a `Double` is ±infinity,
  /// as `strtod` gives it (callers that need a finite value check; `Double(decimalText:)`
  /// does).
  /// - Returns: nil for text outside the grammar.
  /// - Complexity: O(n).
  package static func parseDouble(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
    if let value = parseShortDecimal(text) { return value }
    let n = text.count
    var i = 0
    var negative = false
    if i < n, text[i] == 0x2D || text[i] == 0x2B {
      negative = text[i] == 0x2D
      i += 1
    }
    var mantissa: UInt64 = 0
    var significant = 0
    var exponent = 0
    var digits = 0
    var exact = true
    while i < n, text[i] &- 0x30 < 10 {
      let d = UInt64(text[i] &- 0x30)
      if significant < 19 {
        if mantissa != 0 || d != 0 {
          mantissa = mantissa &* 10 &+ d
          significant += 1
        }
      } else {
        exponent += 1
        if d != 0 { exact = false }
      }
      digits += 1
      i += 1
    }
    if i < n, text[i] == 0x2E {
      i += 1
      while i < n, text[i] &- 0x30 < 10 {
        let d = UInt64(text[i] &- 0x30)
        if significant < 19 {
          if mantissa != 0 || d != 0 {
            mantissa = mantissa &* 10 &+ d
            significant += 1
          }
          exponent -= 1
        } else if d != 0 {
          exact = false
        }
        digits += 1
        i += 1
      }
    }
    guard digits > 0 else { return nil }
    if i < n, text[i] == 0x65 || text[i] == 0x45 {
      i += 1
      var expNegative = false
      if i < n, text[i] == 0x2D || text[i] == 0x2B {
        expNegative = text[i] == 0x2D
        i += 1
      }
      var e = 0
      let start = i
      while i < n, text[i] &- 0x30 < 10 {
        if e < 100_000 { e = e * 10 + Int(text[i] &- 0x30) }
        i += 1
      }
      guard i > start else { return nil }
      exponent += expNegative ? -e : e
    }
    guard i == n else { return nil }
    if mantissa == 0 { return negative ? -0.0 : 0.0 }
    if exact, mantissa < (1 << 53), exponent >= -22, exponent <= 22 {
      var value = Double(mantissa)
      if exponent < 0 {
        value /= powerOfTen(-exponent)
      } else {
        value *= powerOfTen(exponent)
      }
      return negative ? -value : value
    }
    return slowParse(text)
  }

  /// The common case of `parseDouble` in one tight loop: `[+-]digits[.digits]` with at most
  /// 19 digits in all (the mantissa fits in 64 bits whatever the leading zeros) that takes
  /// the exact path; nil for anything else, which the general loop then reads. Same value as
  /// the general loop: the same mantissa and power of ten.
  @inline(__always)
  private static func parseShortDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
    let n = text.count
    guard n > 0, n <= 21 else { return nil }
    let negative = text[0] == 0x2D
    var i = negative || text[0] == 0x2B ? 1 : 0
    var mantissa: UInt64 = 0
    var digits = 0
    var point = -1
    while i < n {
      let c = text[i]
      let d = c &- 0x30
      if d < 10 {
        mantissa = mantissa &* 10 &+ UInt64(d)
        digits += 1
      } else if c == 0x2E, point < 0 {
        point = digits
      } else {
        return nil
      }
      i += 1
    }
    guard digits > 0, digits <= 19 else { return nil }
    if mantissa == 0 { return negative ? -0.0 : 0.0 }
    let fraction = point < 0 ? 0 : digits - point
    guard mantissa < (1 << 53), fraction <= 22 else { return nil }
    let value = fraction == 0 ? Double(mantissa) : Double(mantissa) / powerOfTen(fraction)
    return negative ? -value : value
  }

  /// `strtod` on a NUL-terminated copy; the syntax was already checked by the caller.
  private static func slowParse(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: text.count + 1) { buffer in
      guard let start = buffer.baseAddress else { return nil }
      for (k, byte) in text.enumerated() { buffer[k] = CChar(bitPattern: byte) }
      buffer[text.count] = 0
      var end: UnsafeMutablePointer<CChar>?
      let value = strtod(start, &end)
      guard let end, end - start == text.count else { return nil }
      return value
    }
  }

  /// Parses a non-negative decimal integer of at most 9 digits (a count, a date field).
  package static func parseCount(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
    guard !text.isEmpty, text.count <= 9 else { return nil }
    var value = 0
    for byte in text {
      guard byte &- 0x30 < 10 else { return nil }
      value = value * 10 + Int(byte &- 0x30)
    }
    return value
  }

  /// Appends `value` in plain decimal notation (never an exponent, as `xsd:decimal` and
  /// readable JSON want), rounded to `fractionDigits` places with trailing zeros removed.
  ///
  /// Values whose magnitude is 1e15 or more fall back to Swift's shortest representation.
  package static func append(_ value: Double, fractionDigits: Int, to out: inout String) {
    guard value.isFinite else {
      out += "0"
      return
    }
    var scale = 1.0
    for _ in 0..<fractionDigits { scale *= 10 }
    let scaled = (abs(value) * scale).rounded()
    guard scaled < 9.0e15 else {
      out += String(value)
      return
    }
    var integer = UInt64(scaled)
    var power: UInt64 = 1
    for _ in 0..<fractionDigits { power *= 10 }
    var fraction = integer % power
    integer /= power
    if value < 0, integer != 0 || fraction != 0 { out += "-" }
    out += String(integer)
    guard fraction != 0 else { return }
    var places = fractionDigits
    while fraction % 10 == 0 {
      fraction /= 10
      places -= 1
    }
    let digits = String(fraction)
    out += "."
    if digits.count < places { out += String(repeating: "0", count: places - digits.count) }
    out += digits
  }
}
