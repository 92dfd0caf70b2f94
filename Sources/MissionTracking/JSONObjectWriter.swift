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

  /// A writer that appends its object to `bytes`, taken over and handed back by `finish()`:
  /// a response of many objects is built in one buffer, without a buffer and a String per
  /// object.
  package init(appendingTo bytes: consuming [UInt8]) {
    self.bytes = bytes
    self.bytes.append(UInt8(ascii: "{"))
  }

  /// The bytes given to `init(appendingTo:)` (or none) followed by the finished object.
  package consuming func finish() -> [UInt8] {
    bytes.append(UInt8(ascii: "}"))
    return bytes
  }

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
      Self.appendUTF8(value.description, to: &bytes)
    } else {
      bytes.append(contentsOf: "null".utf8)
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
