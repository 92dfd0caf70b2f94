import Foundation

extension UTCTime {
  /// Parses an RFC 3339 / ISO 8601 date-time from raw UTF-8 bytes, without allocating.
  ///
  /// Accepts `YYYY-MM-DDThh:mm:ss[.f…](Z|±hh:mm|±hhmm)` with a fraction of any length; `T`
  /// may be `t` or a space, `Z` may be `z`. A missing zone designator is read as UTC and
  /// reported through `hadZone`. Returns `nil` for anything else, including out-of-range
  /// fields. This is the byte-level form of `parse(_:)` for streaming readers.
  /// - Complexity: O(n) in the number of bytes.
  package static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> (date: Date, hadZone: Bool)?
  {
    var i = 0
    let n = bytes.count
    func number(_ count: Int) -> Int? {
      guard i + count <= n else { return nil }
      var value = 0
      for _ in 0..<count {
        let b = bytes[i]
        guard b >= 48, b <= 57 else { return nil }
        value = value * 10 + Int(b - 48)
        i += 1
      }
      return value
    }
    func expect(_ c: UInt8) -> Bool {
      guard i < n, bytes[i] == c else { return false }
      i += 1
      return true
    }
    guard let year = number(4), expect(45), let month = number(2), expect(45),
      let day = number(2)
    else { return nil }
    guard i < n, bytes[i] == 84 || bytes[i] == 116 || bytes[i] == 32 else { return nil }
    i += 1
    guard let hour = number(2), expect(58), let minute = number(2), expect(58),
      let second = number(2)
    else { return nil }
    guard (1...12).contains(month), (1...daysInMonth(year: year, month: month)).contains(day),
      hour <= 23, minute <= 59, second <= 60
    else { return nil }
    var fraction = 0.0
    if i < n, bytes[i] == 46 || bytes[i] == 44 {
      i += 1
      // Up to 9 digits exactly as an integer (nanoseconds); further digits cannot change a
      // Double of a realistic date and are only checked to be digits.
      var nanos = 0
      var digits = 0
      let start = i
      while i < n, bytes[i] >= 48, bytes[i] <= 57 {
        if digits < 9 {
          nanos = nanos * 10 + Int(bytes[i] - 48)
          digits += 1
        }
        i += 1
      }
      guard i > start else { return nil }
      var scale = 1
      for _ in digits..<9 { scale *= 10 }
      fraction = Double(nanos * scale) / 1e9
    }
    var offsetSeconds = 0
    var hadZone = false
    if i < n {
      hadZone = true
      if bytes[i] == 90 || bytes[i] == 122 {
        i += 1
      } else if bytes[i] == 43 || bytes[i] == 45 {
        let sign = bytes[i] == 45 ? -1 : 1
        i += 1
        guard let oh = number(2) else { return nil }
        _ = expect(58)
        guard let om = number(2), oh <= 23, om <= 59 else { return nil }
        offsetSeconds = sign * (oh * 3600 + om * 60)
      } else {
        return nil
      }
    }
    guard i == n else { return nil }
    let seconds = Double(hour * 3600 + minute * 60 + second - offsetSeconds) + fraction
    return (date(year: year, month: month, day: day, secondsOfDay: seconds), hadZone)
  }

  /// Days in `month` (1…12) of `year` in the proleptic Gregorian calendar: an impossible
  /// date such as 2024-02-30 is refused instead of rolling over into March.
  static func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: 30
    default: 31
    }
  }
}
