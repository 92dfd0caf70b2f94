/// A statement that writes `count` rows at once (`INSERT … VALUES (…), (…)`), prepared once,
/// with each row's named parameters resolved once: row r's parameters are named like the
/// row's columns with `r` appended (`:lat0, :lat1, …`), so that a hot path binds by
/// resolved parameter, never by a hand-counted index nor by a name per value.
final class MultiRowStatement<Row> {
  /// The statement.
  let statement: SQLiteStatement
  /// Each row's parameters, in row order.
  let rows: [Row]

  /// `statement`, of `count` rows, each resolved with `resolve(statement, r)`.
  /// - Throws: `StoreError` when a row's parameter is missing.
  init(
    _ statement: SQLiteStatement, count: Int, resolve: (SQLiteStatement, Int) throws -> Row
  ) throws {
    self.statement = statement
    rows = try (0..<count).map { try resolve(statement, $0) }
  }

  /// `(:a0, :b0), (:a1, :b1), …` for `count` rows of `names` (`literal` entries are written
  /// as they are, not as parameters).
  static func values(_ names: [String], count: Int) -> String {
    (0..<count).map { row in
      "(" + names.map { $0.hasPrefix("'") ? $0 : ":\($0)\(row)" }.joined(separator: ", ") + ")"
    }.joined(separator: ", ")
  }
}
