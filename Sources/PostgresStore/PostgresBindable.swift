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
    var text = "{"
    for (index, element) in elements.enumerated() {
      if index > 0 { text += "," }
      guard let element else {
        text += "NULL"
        continue
      }
      text += "\""
      for character in element.unicodeScalars {
        if character == "\"" || character == "\\" { text += "\\" }
        text.unicodeScalars.append(character)
      }
      text += "\""
    }
    postgresText = text + "}"
  }

  /// The array of `values`' text forms.
  package init<Value: PostgresBindable>(_ values: [Value]) {
    self.init(values.map(\.postgresText))
  }
}
