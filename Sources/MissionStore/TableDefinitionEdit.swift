import Foundation

/// A change to a table's stored `CREATE TABLE` text that leaves every stored row valid and
/// the file's format as it is, made in place: SQLite's documented procedure for changing a
/// CHECK constraint or a default (`PRAGMA writable_schema`, then a new `schema_version`),
/// where copying the table would rewrite every row.
///
/// Only for a change that accepts exactly the rows the old text accepted, or more: nothing
/// already stored is checked again.
struct TableDefinitionEdit: Sendable {
  /// The table whose definition changes.
  let table: String
  /// Text that occurs exactly once in the table's definition.
  let old: String
  /// Its replacement.
  let new: String

  /// Replaces `old` by `new` in the table's definition, inside the caller's transaction.
  /// - Throws: `StoreError.sqlite` when the definition does not hold `old` exactly once (a
  ///   file whose schema this build did not write), or for SQLite's own errors.
  func apply(_ connection: SQLiteConnection) throws {
    let read = try connection.prepare(
      "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = :table")
    try read.bind(["table": table])
    let definition = try read.step() ? try read.string("sql") : nil
    read.finalize()
    guard let definition, definition.components(separatedBy: old).count == 2 else {
      throw StoreError.sqlite(
        code: 1, message: "the definition of table \(table) is not the one this step changes",
        sql: "")
    }
    let version = try connection.integer("PRAGMA schema_version") ?? 0
    try connection.execute("PRAGMA writable_schema = ON")
    defer { try? connection.execute("PRAGMA writable_schema = OFF") }
    let write = try connection.prepare(
      "UPDATE sqlite_schema SET sql = :sql WHERE type = 'table' AND name = :table")
    try write.bind(["sql": definition.replacingOccurrences(of: old, with: new), "table": table])
    try write.run()
    write.finalize()
    // Tells every connection, this one included, to read the schema again. PRAGMA cannot
    // take a bound parameter; the value is an integer SQLite gave.
    try connection.execute("PRAGMA schema_version = \(version + 1)")
  }
}
