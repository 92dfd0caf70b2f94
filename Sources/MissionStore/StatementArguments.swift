/// Values for a statement's named parameters, GRDB's `StatementArguments`:
/// `["id": mission.id, "lat": 59.6, "reward": nil]` binds `:id`, `:lat` and `:reward`.
///
/// `SQLiteStatement.bind(_:)` checks that they name every parameter of the statement and no
/// other. For the hot paths (a row of a multi-row insert), bind through resolved
/// `SQLiteStatement.Parameter`s instead: no lookup by name per value.
struct StatementArguments: ExpressibleByDictionaryLiteral {
  /// The values in the order given; nil binds NULL.
  private(set) var values: [(name: String, value: (any SQLiteBindable)?)]

  init(dictionaryLiteral elements: (String, (any SQLiteBindable)?)...) {
    values = elements.map { (name: $0.0, value: $0.1) }
  }

  /// Adds the value of parameter `name` (for a statement whose conditions vary).
  mutating func append(_ name: String, _ value: (any SQLiteBindable)?) {
    values.append((name: name, value: value))
  }
}

/// A Swift value SQLite stores: an integer, a real or text.
protocol SQLiteBindable {
  /// Binds the value to `parameter` of `statement`.
  func bind(to statement: SQLiteStatement, at parameter: SQLiteStatement.Parameter) throws
}

extension Int64: SQLiteBindable {
  func bind(to statement: SQLiteStatement, at parameter: SQLiteStatement.Parameter) throws {
    try statement.bind(self, to: parameter)
  }
}

extension Int: SQLiteBindable {
  func bind(to statement: SQLiteStatement, at parameter: SQLiteStatement.Parameter) throws {
    try statement.bind(self, to: parameter)
  }
}

extension Double: SQLiteBindable {
  func bind(to statement: SQLiteStatement, at parameter: SQLiteStatement.Parameter) throws {
    try statement.bind(self, to: parameter)
  }
}

extension String: SQLiteBindable {
  func bind(to statement: SQLiteStatement, at parameter: SQLiteStatement.Parameter) throws {
    try statement.bind(self, to: parameter)
  }
}
