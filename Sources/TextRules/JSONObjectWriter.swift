/// Builds one JSON object as text, keys in the order they are added.
///
/// Event and fix lines are written this way so that key order is stable and no reflection or
/// dictionary is involved. Non-finite numbers become `null`.
package struct JSONObjectWriter {
  // UTF-8 bytes, decoded once in `result`: appending bytes is several times faster than
  // appending to a String piece by piece, and event lines are written per fix.
  private var bytes: [UInt8]
  private var first = true

  package init() {
    bytes = []
    bytes.reserveCapacity(256)
    bytes.append(UInt8(ascii: "{"))
  }

  /// The object so far as UTF-8, without its closing brace: for a caller that keeps it and
  /// appends members later (`MissionDirectory` keeps each mission's, and a nearby response
  /// adds `,"distance_m":…}`).
  package var openBytes: [UInt8] { bytes }

  /// Appends the UTF-8 of `text` in one copy (iterating `String.UTF8View` byte by byte is
  /// several times slower).
  private static func appendUTF8(_ text: String, to out: inout [UInt8]) {
    var text = text
    text.withUTF8 { out.append(contentsOf: $0) }
  }

  private mutating func key(_ name: String) {
    if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
    bytes.append(UInt8(ascii: "\""))
    Self.appendUTF8(name, to: &bytes)
    bytes.append(UInt8(ascii: "\""))
    bytes.append(UInt8(ascii: ":"))
  }

  /// Adds a string member, escaped per RFC 8259.
  package mutating func add(_ name: String, _ value: String) {
    key(name)
    JSONObjectWriter.appendQuoted(value, to: &bytes)
  }

  /// Adds a number member (`null` when not finite).
  package mutating func add(_ name: String, _ value: Double) {
    key(name)
    if value.isFinite {
      Self.appendNumber(value, to: &bytes)
    } else {
      bytes.append(contentsOf: "null".utf8)
    }
  }

  /// Appends `value.description` (`value` finite): written directly when it is a decimal of
  /// at most 8 places between 0.001 and 10^7 in magnitude (coordinates as imported, radii),
  /// else through `description`. Formatting a Double was a tenth of a nearby response's time.
  package static func appendNumber(_ value: Double, to out: inout [UInt8]) {
    if !appendShortDecimal(value, to: &out) { appendUTF8(value.description, to: &out) }
  }

  /// Writes `value` as `description` does when some decimal with at most 8 places rounds to
  /// it and 0.001 <= |value| < 10^7; returns false (writing nothing) otherwise.
  ///
  /// `description` gives the shortest decimal that rounds back to the value. Below 10^7 a
  /// Double's spacing is under 2e-9, so at most one decimal of 8 or fewer places lies within
  /// half of it, and `|value| * 10^8` is within 0.2 of that decimal times 10^8: its rounding
  /// `n` is the only candidate. `n / 10^8` rounds back exactly when it equals `|value|` (`n`,
  /// below 2^53, and 10^8 are exact, and IEEE division rounds correctly). Without `n`'s
  /// trailing zeros it has the fewest places, so the fewest significant digits:
  /// `description`'s choice, which in this range uses no exponent.
  static func appendShortDecimal(_ value: Double, to out: inout [UInt8]) -> Bool {
    let magnitude = value.magnitude
    guard magnitude >= 1e-3, magnitude < 1e7 else { return false }
    let scaled = (magnitude * 1e8).rounded()
    guard scaled / 1e8 == magnitude else { return false }
    var digits = UInt64(scaled)
    var places = 8
    while places > 0 && digits % 10 == 0 {
      digits /= 10
      places -= 1
    }
    var divisor: UInt64 = 1
    for _ in 0..<places { divisor *= 10 }
    if value < 0 { out.append(UInt8(ascii: "-")) }
    appendDecimal(digits / divisor, minimumDigits: 1, to: &out)
    out.append(UInt8(ascii: "."))
    if places == 0 {
      out.append(UInt8(ascii: "0"))
    } else {
      appendDecimal(digits % divisor, minimumDigits: places, to: &out)
    }
    return true
  }

  /// Appends `number` in decimal, zero-padded to `minimumDigits`.
  private static func appendDecimal(_ number: UInt64, minimumDigits: Int, to out: inout [UInt8]) {
    var buffer: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: room for 20 digits
    withUnsafeMutableBytes(of: &buffer) { raw in
      var rest = number
      var start = raw.count
      repeat {
        start -= 1
        raw[start] = UInt8(ascii: "0") + UInt8(rest % 10)
        rest /= 10
      } while rest > 0 || raw.count - start < minimumDigits
      out.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start...]))
    }
  }

  /// Adds an integer member.
  package mutating func add(_ name: String, _ value: Int) {
    key(name)
    Self.appendUTF8(String(value), to: &bytes)
  }

  /// Adds a boolean member.
  package mutating func add(_ name: String, _ value: Bool) {
    key(name)
    bytes.append(contentsOf: (value ? "true" : "false").utf8)
  }

  /// Adds the member only when `value` is not nil.
  package mutating func addIfPresent(_ name: String, _ value: Double?) {
    if let value { add(name, value) }
  }

  /// Adds the member only when `value` is not nil.
  package mutating func addIfPresent(_ name: String, _ value: Int?) {
    if let value { add(name, value) }
  }

  /// Adds the member only when `value` is not nil.
  package mutating func addIfPresent(_ name: String, _ value: String?) {
    if let value { add(name, value) }
  }

  /// Adds pre-encoded JSON (an object or array) as the member's value.
  package mutating func addRaw(_ name: String, json: String) {
    key(name)
    Self.appendUTF8(json, to: &bytes)
  }

  /// The finished object, without a trailing newline.
  package var result: String {
    // Every byte came from a String or an ASCII literal, so the bytes are valid UTF-8.
    String(unsafeUninitializedCapacity: bytes.count + 1) { buffer in
      let copied = buffer.initialize(fromContentsOf: bytes)
      buffer[copied] = UInt8(ascii: "}")
      return copied + 1
    }
  }

  /// Appends `value` as a JSON string literal to UTF-8 bytes.
  package static func appendQuoted(_ value: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    var value = value
    value.withUTF8 { utf8 in
      let plain = !utf8.contains {
        $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\")
      }
      if plain {
        out.append(contentsOf: utf8)
        return
      }
      for byte in utf8 {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
        case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
        case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
        case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
        case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
        case 0..<0x20:
          let hex: [UInt8] = Array("0123456789abcdef".utf8)
          out.append(contentsOf: "\\u00".utf8)
          out.append(hex[Int(byte >> 4)])
          out.append(hex[Int(byte & 0xF)])
        default: out.append(byte)
        }
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  /// Appends `value` as a JSON string literal.
  package static func appendQuoted(_ value: String, to out: inout String) {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(value.utf8.count + 2)
    appendQuoted(value, to: &bytes)
    out += String(decoding: bytes, as: UTF8.self)
  }
}
