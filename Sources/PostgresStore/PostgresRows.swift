import CLibpq

/// The rows a statement returned, read by column name in text format.
///
/// It owns the libpq result and frees it when released. Not `Sendable`: it lives inside
/// the connection's owner.
final class PostgresRows {
  private let result: OpaquePointer
  /// The number of rows.
  let count: Int
  private let columns: [String: Int32]

  init(taking result: OpaquePointer) {
    self.result = result
    count = Int(PQntuples(result))
    var columns: [String: Int32] = [:]
    for index in 0..<PQnfields(result) {
      if let name = PQfname(result, index) { columns[String(cString: name)] = index }
    }
    self.columns = columns
  }

  deinit { PQclear(result) }

  /// The number of rows the statement changed (`INSERT`, `UPDATE`, `COPY` …).
  var affectedRows: Int {
    guard let text = PQcmdTuples(result) else { return 0 }
    return Int(String(cString: text)) ?? 0
  }

  /// The text of column `name` in row `row`, nil for NULL.
  /// - Precondition: the statement returned a column named `name` (a programming error
  ///   otherwise, not a data error).
  func string(_ row: Int, _ name: String) -> String? {
    guard let column = columns[name] else {
      preconditionFailure("no column \(name) in the result")
    }
    if PQgetisnull(result, Int32(row), column) != 0 { return nil }
    return String(cString: PQgetvalue(result, Int32(row), column))
  }

  /// Column `name` of row `row` as a `Double` (PostgreSQL's `Infinity`, `NaN` included).
  func double(_ row: Int, _ name: String) -> Double? {
    guard let text = string(row, name) else { return nil }
    switch text {
    case "Infinity": return .infinity
    case "-Infinity": return -.infinity
    default: return Double(text)
    }
  }

  /// Column `name` of row `row` as an integer.
  func int64(_ row: Int, _ name: String) -> Int64? { string(row, name).flatMap { Int64($0) } }

  /// Column `name` of row `row` as a boolean (`t` / `f`).
  func bool(_ row: Int, _ name: String) -> Bool? { string(row, name).map { $0 == "t" } }

  /// The first row, nil when there is none.
  var firstRow: Row? { count > 0 ? Row(rows: self, index: 0) : nil }

  /// The first row that satisfies `condition`, or nil.
  func firstRow(where condition: (Row) throws -> Bool) rethrows -> Row? {
    for index in 0..<count where try condition(Row(rows: self, index: index)) {
      return Row(rows: self, index: index)
    }
    return nil
  }

  /// One row of a result, read by column name.
  struct Row {
    let rows: PostgresRows
    let index: Int

    /// The text of column `name`, nil for NULL.
    func string(_ name: String) -> String? { rows.string(index, name) }
    /// Column `name` as an integer.
    func int64(_ name: String) -> Int64? { rows.int64(index, name) }
  }
}
