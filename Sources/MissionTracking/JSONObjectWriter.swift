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

  private mutating func key(_ name: String) {
    if first { first = false } else { bytes.append(UInt8(ascii: ",")) }
    bytes.append(UInt8(ascii: "\""))
    bytes.append(contentsOf: name.utf8)
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
      bytes.append(contentsOf: value.description.utf8)
    } else {
      bytes.append(contentsOf: "null".utf8)
    }
  }

  /// Adds an integer member.
  package mutating func add(_ name: String, _ value: Int) {
    key(name)
    bytes.append(contentsOf: String(value).utf8)
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
    bytes.append(contentsOf: json.utf8)
  }

  /// The finished object, without a trailing newline.
  package var result: String {
    var out = bytes
    out.append(UInt8(ascii: "}"))
    return String(decoding: out, as: UTF8.self)
  }

  /// Appends `value` as a JSON string literal to UTF-8 bytes.
  package static func appendQuoted(_ value: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    let utf8 = value.utf8
    if !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
    {
      out.append(contentsOf: utf8)
    } else {
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
