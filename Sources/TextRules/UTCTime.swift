import Foundation

/// RFC 3339 formatting and parsing in UTC, without Foundation's slow date formatters.
///
/// Dates are handled with the proleptic Gregorian calendar through Howard Hinnant's
/// `days_from_civil` / `civil_from_days` algorithms ("chrono-Compatible Low-Level Date
/// Algorithms", 2013).
package enum UTCTime {
  /// Seconds from 1970-01-01T00:00:00Z to 2001-01-01T00:00:00Z.
  static let unixToReferenceSeconds: Double = 978_307_200

  /// Days since 1970-01-01 of the civil date `year-month-day`.
  package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146_097 + doe - 719_468
  }

  /// The civil date of `days` since 1970-01-01.
  package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let doe = z - era * 146_097
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let day = doy - (153 * mp + 2) / 5 + 1
    let month = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
  }

  /// The date at `year-month-day` plus `secondsOfDay` (may be fractional), UTC.
  package static func date(year: Int, month: Int, day: Int, secondsOfDay: Double) -> Date {
    let days = Double(daysFromCivil(year: year, month: month, day: day))
    return Date(timeIntervalSince1970: days * 86_400 + secondsOfDay)
  }

  /// `2024-05-01T10:00:00.250Z`: RFC 3339, UTC, always with milliseconds.
  package static func format(_ date: Date) -> String {
    let totalMillis = (date.timeIntervalSince1970 * 1000).rounded()
    let millisInt = Int(totalMillis)
    var days = millisInt / 86_400_000
    var millisOfDay = millisInt % 86_400_000
    if millisOfDay < 0 {
      millisOfDay += 86_400_000
      days -= 1
    }
    let (y, mo, d) = civilFromDays(days)
    let h = millisOfDay / 3_600_000
    let mi = millisOfDay / 60_000 % 60
    let s = millisOfDay / 1000 % 60
    let ms = millisOfDay % 1000
    guard (0...9999).contains(y) else {
      var out = ""
      pad(&out, y, 4)
      out += "-"
      pad(&out, mo, 2)
      out += "-"
      pad(&out, d, 2)
      out += "T"
      pad(&out, h, 2)
      out += ":"
      pad(&out, mi, 2)
      out += ":"
      pad(&out, s, 2)
      out += "."
      pad(&out, ms, 3)
      out += "Z"
      return out
    }
    // Fixed layout `YYYY-MM-DDThh:mm:ss.sssZ`, written as bytes: this runs once per event.
    return String(unsafeUninitializedCapacity: 24) { buffer in
      func put(_ value: Int, _ width: Int, at offset: Int) {
        var v = value
        for i in stride(from: offset + width - 1, through: offset, by: -1) {
          buffer[i] = UInt8(truncatingIfNeeded: 48 + v % 10)
          v /= 10
        }
      }
      put(y, 4, at: 0)
      buffer[4] = UInt8(ascii: "-")
      put(mo, 2, at: 5)
      buffer[7] = UInt8(ascii: "-")
      put(d, 2, at: 8)
      buffer[10] = UInt8(ascii: "T")
      put(h, 2, at: 11)
      buffer[13] = UInt8(ascii: ":")
      put(mi, 2, at: 14)
      buffer[16] = UInt8(ascii: ":")
      put(s, 2, at: 17)
      buffer[19] = UInt8(ascii: ".")
      put(ms, 3, at: 20)
      buffer[23] = UInt8(ascii: "Z")
      return 24
    }
  }

  private static func pad(_ out: inout String, _ value: Int, _ width: Int) {
    let digits = String(abs(value))
    if value < 0 { out += "-" }
    if digits.count < width { out += String(repeating: "0", count: width - digits.count) }
    out += digits
  }

  /// Parses an RFC 3339 / ISO 8601 date-time: `YYYY-MM-DDThh:mm:ss[.fff…](Z|±hh:mm|±hhmm)`.
  ///
  /// A missing zone designator is read as UTC and reported through `hadZone`. A space may
  /// stand for `T`. Returns `nil` for anything else, including out-of-range fields. See
  /// `parse(utf8:)`, which does the work.
  package static func parse(_ text: some StringProtocol) -> (date: Date, hadZone: Bool)? {
    var copy = String(text)
    return copy.withUTF8 { parse(utf8: $0) }
  }

}
