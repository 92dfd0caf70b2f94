/// Builds one JSON object as text, keys in the order they are added.
///
/// Event and fix lines are written this way so that key order is stable and no reflection or
/// dictionary is involved. Non-finite numbers become `null`.
package struct JSONObjectWriter {
  private var text = "{"
  private var first = true

  package init() {}

  private mutating func key(_ name: String) {
    if first { first = false } else { text += "," }
    text += "\""
    text += name
    text += "\":"
  }

  /// Adds a string member, escaped per RFC 8259.
  package mutating func add(_ name: String, _ value: String) {
    key(name)
    JSONObjectWriter.appendQuoted(value, to: &text)
  }

  /// Adds a number member (`null` when not finite).
  package mutating func add(_ name: String, _ value: Double) {
    key(name)
    text += value.isFinite ? "\(value)" : "null"
  }

  /// Adds an integer member.
  package mutating func add(_ name: String, _ value: Int) {
    key(name)
    text += String(value)
  }

  /// Adds a boolean member.
  package mutating func add(_ name: String, _ value: Bool) {
    key(name)
    text += value ? "true" : "false"
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
    text += json
  }

  /// The finished object, without a trailing newline.
  package var result: String { text + "}" }

  /// Appends `value` as a JSON string literal.
  package static func appendQuoted(_ value: String, to out: inout String) {
    out += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case let s where s.value < 0x20:
        let hex = String(s.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
  }
}
