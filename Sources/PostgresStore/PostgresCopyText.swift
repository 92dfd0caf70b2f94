import TextRules

/// PostgreSQL's `COPY` text format, written into a byte buffer: fields separated by tabs,
/// a row ended by a newline, `\N` for NULL, and a backslash, tab, newline or carriage return
/// inside a value escaped. The one writer of it: bulk import (recording writes the binary
/// format, `PostgresCopyBinary`).
enum PostgresCopyText {
  /// Appends `text` (nil: NULL) and the tab after it, or the newline when it is `last`.
  static func field(_ text: String?, last: Bool = false, to row: inout [UInt8]) {
    if var text {
      text.withUTF8 { bytes in
        // Runs without a byte to escape go in whole.
        var start = 0
        for (index, byte) in bytes.enumerated() {
          let escaped: UInt8
          switch byte {
          case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
          case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
          case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
          case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
          default: continue
          }
          row.append(contentsOf: bytes[start..<index])
          row.append(contentsOf: [UInt8(ascii: "\\"), escaped])
          start = index + 1
        }
        row.append(contentsOf: bytes[start...])
      }
    } else {
      row.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
    }
    row.append(last ? UInt8(ascii: "\n") : UInt8(ascii: "\t"))
  }

  /// Appends the `timestamptz` `microseconds` after 1970-01-01T00:00:00Z, exactly
  /// (`2026-05-04 09:30:00.123456+00`; a year before 1 as `… BC`), and the tab after it.
  static func timestamp(microseconds: Int64, to row: inout [UInt8]) {
    let perDay: Int64 = 86_400_000_000
    let days = microseconds >= 0 ? microseconds / perDay : (microseconds + 1) / perDay - 1
    let ofDay = microseconds - days * perDay
    let (year, month, day) = UTCTime.civilFromDays(Int(days))
    func digits(_ value: Int64, _ width: Int) {
      var divisor: Int64 = 1
      for _ in 1..<width { divisor *= 10 }
      var rest = value
      while divisor > 0 {
        row.append(UInt8(ascii: "0") + UInt8(rest / divisor))
        rest %= divisor
        divisor /= 10
      }
    }
    let shownYear = Int64(year > 0 ? year : 1 - year)
    digits(shownYear, shownYear > 9999 ? String(shownYear).count : 4)
    row.append(UInt8(ascii: "-"))
    digits(Int64(month), 2)
    row.append(UInt8(ascii: "-"))
    digits(Int64(day), 2)
    row.append(UInt8(ascii: " "))
    digits(ofDay / 3_600_000_000, 2)
    row.append(UInt8(ascii: ":"))
    digits(ofDay / 60_000_000 % 60, 2)
    row.append(UInt8(ascii: ":"))
    digits(ofDay / 1_000_000 % 60, 2)
    row.append(UInt8(ascii: "."))
    digits(ofDay % 1_000_000, 6)
    row.append(contentsOf: Array("+00".utf8))
    if year <= 0 { row.append(contentsOf: Array(" BC".utf8)) }
    row.append(UInt8(ascii: "\t"))
  }
}
