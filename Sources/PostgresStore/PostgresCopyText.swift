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
}
