/// A value bound to a statement's parameter, sent in PostgreSQL's text format (the server
/// casts it to the parameter's type); nil is SQL NULL.
package protocol PostgresBindable: Sendable {
  /// The value's text form, or nil for NULL.
  var postgresText: String? { get }
}

extension String: PostgresBindable {
  /// The string itself.
  package var postgresText: String? { self }
}

extension Int: PostgresBindable {
  /// The decimal digits.
  package var postgresText: String? { String(self) }
}

extension Int64: PostgresBindable {
  /// The decimal digits.
  package var postgresText: String? { String(self) }
}

extension Bool: PostgresBindable {
  /// `t` or `f`.
  package var postgresText: String? { self ? "t" : "f" }
}

extension Double: PostgresBindable {
  /// The shortest text that reads back as the same `Double` (the server's `float8` input
  /// parses it exactly), with PostgreSQL's spelling of the non-finite values.
  package var postgresText: String? {
    if isNaN { return "NaN" }
    if isInfinite { return self < 0 ? "-Infinity" : "Infinity" }
    return description
  }
}

extension Optional: PostgresBindable where Wrapped: PostgresBindable {
  /// The wrapped value's text, or nil for NULL.
  package var postgresText: String? { self?.postgresText }
}

/// Named arguments of a statement: `:name` in the SQL takes `arguments["name"]`.
package typealias PostgresArguments = [String: any PostgresBindable]

/// A one-dimensional array argument in text format (`{"a",NULL,"b"}`), for `unnest`: many
/// rows in one statement. The SQL casts it to its element type (`CAST(:x AS float8[])`).
package struct PostgresArray: PostgresBindable {
  /// The array literal.
  package let postgresText: String?

  /// The array of `elements` (nil elements are NULL).
  package init(_ elements: [String?]) {
    // Built as UTF-8 bytes, escaped byte by byte: `"` and `\` never occur inside a
    // multi-byte character. (Appending to a `String` scalar by scalar led a node's profile
    // at ingest.)
    let quote = UInt8(ascii: "\"")
    let backslash = UInt8(ascii: "\\")
    var bytes: [UInt8] = []
    bytes.reserveCapacity(2 + elements.count * 12)
    bytes.append(UInt8(ascii: "{"))
    for (index, element) in elements.enumerated() {
      if index > 0 { bytes.append(UInt8(ascii: ",")) }
      guard let element else {
        bytes.append(contentsOf: "NULL".utf8)
        continue
      }
      bytes.append(quote)
      for byte in element.utf8 {
        if byte == quote || byte == backslash { bytes.append(backslash) }
        bytes.append(byte)
      }
      bytes.append(quote)
    }
    bytes.append(UInt8(ascii: "}"))
    postgresText = String(decoding: bytes, as: UTF8.self)
  }

  /// The array of `values`' text forms.
  package init<Value: PostgresBindable>(_ values: [Value]) {
    self.init(values.map(\.postgresText))
  }
}
