import CSQLite

/// A prepared statement: parameters bound by name (`:id`), columns read by name, GRDB's
/// `StatementArguments` and `Row["id"]`.
///
/// The names are resolved to SQLite's indexes once, when the statement is prepared (a map of
/// each, read from `sqlite3_bind_parameter_name` and `sqlite3_column_name`). A hot path
/// resolves the names it uses once more into `Parameter` and `Column` values and binds and
/// reads through them, with no lookup by name per row.
///
/// Internal: raw C calls stay in this layer and `SQLiteConnection`.
final class SQLiteStatement {
  /// A parameter of this statement, resolved from its name.
  struct Parameter {
    /// SQLite's 1-based index.
    fileprivate let index: Int32
  }

  /// A result column of this statement, resolved from its name.
  struct Column {
    /// SQLite's 0-based index.
    fileprivate let index: Int32
  }

  private var handle: OpaquePointer?
  /// The SQL text, carried into every error.
  let sql: String
  private unowned let connection: SQLiteConnection
  /// Each named parameter's index, by its name without the `:`.
  private let parameters: [String: Parameter]
  /// Each result column's index, by its name.
  private let columns: [String: Column]

  init(handle: OpaquePointer, sql: String, connection: SQLiteConnection) {
    self.handle = handle
    self.sql = sql
    self.connection = connection
    var parameters: [String: Parameter] = [:]
    for index in Int32(1)...max(1, sqlite3_bind_parameter_count(handle)) {
      guard let name = sqlite3_bind_parameter_name(handle, index) else { continue }
      parameters[String(String(cString: name).dropFirst())] = Parameter(index: index)
    }
    self.parameters = parameters
    var columns: [String: Column] = [:]
    for index in 0..<sqlite3_column_count(handle) {
      guard let name = sqlite3_column_name(handle, index) else { continue }
      columns[String(cString: name)] = Column(index: index)
    }
    self.columns = columns
  }

  deinit { finalize() }

  /// Releases the compiled statement; idempotent.
  func finalize() {
    if let handle { sqlite3_finalize(handle) }
    handle = nil
  }

  /// Resets the statement for another run and clears its bindings (so no value outlives
  /// its use).
  func reset() {
    guard let handle else { return }
    sqlite3_reset(handle)
    sqlite3_clear_bindings(handle)
  }

  /// Resets the statement for another run, keeping bindings (cheap; for reuse).
  func rewind() {
    guard let handle else { return }
    sqlite3_reset(handle)
  }

  private func check(_ rc: Int32) throws {
    guard rc == SQLITE_OK else { throw connection.error(rc, sql: sql) }
  }

  private func live() throws -> OpaquePointer {
    guard let handle else { throw StoreError.closed(path: connection.path) }
    return handle
  }

  /// The error for a name the statement does not have (a mistake in our SQL or Swift).
  private func unknown(_ what: String, _ name: String) -> StoreError {
    StoreError(resultCode: SQLITE_RANGE, message: "no \(what) named '\(name)'", sql: sql)
  }

  // MARK: - Binding

  /// Parameter `:name`.
  /// - Throws: `StoreError` when the statement has no such parameter.
  func parameter(_ name: String) throws -> Parameter {
    guard let parameter = parameters[name] else { throw unknown("parameter", ":" + name) }
    return parameter
  }

  /// Binds every named parameter of the statement, each from `arguments` (a value or nil
  /// for NULL).
  /// - Throws: `StoreError` when an argument names no parameter or a parameter is left
  ///   without an argument.
  func bind(_ arguments: StatementArguments) throws {
    for (name, value) in arguments.values {
      let parameter = try parameter(name)
      if let value {
        try value.bind(to: self, at: parameter)
      } else {
        try check(sqlite3_bind_null(try live(), parameter.index))
      }
    }
    if arguments.values.count != parameters.count {
      let given = Set(arguments.values.map(\.name))
      let missing = parameters.keys.filter { !given.contains($0) }.sorted()
      throw unknown("argument for the parameter", missing.map { ":" + $0 }.joined(separator: ", "))
    }
  }

  /// Binds an integer, or NULL.
  func bind(_ value: Int64?, to parameter: Parameter) throws {
    let h = try live()
    if let value {
      try check(sqlite3_bind_int64(h, parameter.index, value))
    } else {
      try check(sqlite3_bind_null(h, parameter.index))
    }
  }

  /// Binds an integer, or NULL.
  func bind(_ value: Int?, to parameter: Parameter) throws {
    try bind(value.map { Int64($0) }, to: parameter)
  }

  /// Binds a real, or NULL (also for NaN, which SQLite would store as NULL or reject in
  /// CHECKs anyway).
  func bind(_ value: Double?, to parameter: Parameter) throws {
    let h = try live()
    if let value, !value.isNaN {
      try check(sqlite3_bind_double(h, parameter.index, value))
    } else {
      try check(sqlite3_bind_null(h, parameter.index))
    }
  }

  /// Binds UTF-8 text (copied by SQLite), or NULL.
  func bind(_ value: String?, to parameter: Parameter) throws {
    let h = try live()
    let index = parameter.index
    guard var value else { return try check(sqlite3_bind_null(h, index)) }
    let rc = value.withUTF8 { bytes -> Int32 in
      guard let base = bytes.baseAddress else {
        return sqlite3_bind_text(h, index, "", 0, missiontrack_sqlite_transient())
      }
      return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
        sqlite3_bind_text(h, index, $0, Int32(bytes.count), missiontrack_sqlite_transient())
      }
    }
    try check(rc)
  }

  // MARK: - Stepping

  /// Runs one step: true when a row is available, false when done.
  /// - Throws: The `StoreError` of SQLite's code, with its message and this statement's SQL.
  func step() throws -> Bool {
    let rc = sqlite3_step(try live())
    switch rc {
    case SQLITE_ROW: return true
    case SQLITE_DONE: return false
    default:
      let error = connection.error(rc, sql: sql)
      reset()
      throw error
    }
  }

  /// Runs the statement to completion (for INSERT/UPDATE/DELETE) and rewinds it; every use
  /// binds all parameters again.
  func run() throws {
    defer { rewind() }
    while try step() {}
  }

  // MARK: - Reading

  /// The first result column, for a query of one value (a count, a pragma) whose column
  /// has no name worth spelling.
  var onlyColumn: Column { Column(index: 0) }

  /// Result column `name`.
  /// - Throws: `StoreError` when the statement has no such column.
  func column(_ name: String) throws -> Column {
    guard let column = columns[name] else { throw unknown("column", name) }
    return column
  }

  /// Whether `column` of the current row is NULL.
  func isNull(_ column: Column) -> Bool {
    guard let handle else { return true }
    return sqlite3_column_type(handle, column.index) == SQLITE_NULL
  }

  /// `column` as an integer (0 when NULL).
  func int64(_ column: Column) -> Int64 {
    guard let handle else { return 0 }
    return sqlite3_column_int64(handle, column.index)
  }

  /// `column` as a real (0 when NULL).
  func double(_ column: Column) -> Double {
    guard let handle else { return 0 }
    return sqlite3_column_double(handle, column.index)
  }

  /// `column` as a real, nil when NULL.
  func optionalDouble(_ column: Column) -> Double? {
    isNull(column) ? nil : double(column)
  }

  /// `column` as an integer, nil when NULL.
  func optionalInt64(_ column: Column) -> Int64? {
    isNull(column) ? nil : int64(column)
  }

  /// `column` as text, nil when NULL.
  func string(_ column: Column) -> String? {
    guard let handle, let text = sqlite3_column_text(handle, column.index) else { return nil }
    let count = Int(sqlite3_column_bytes(handle, column.index))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// Calls `body` with `column`'s UTF-8 bytes (no copy; valid only inside `body`).
  func withUTF8<T>(_ column: Column, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
    guard let handle, let text = sqlite3_column_text(handle, column.index) else {
      return body(UnsafeBufferPointer(start: nil, count: 0))
    }
    let count = Int(sqlite3_column_bytes(handle, column.index))
    return body(UnsafeBufferPointer(start: text, count: count))
  }

  /// Column `name` as an integer (0 when NULL).
  func int64(_ name: String) throws -> Int64 { int64(try column(name)) }

  /// Column `name` as a real (0 when NULL).
  func double(_ name: String) throws -> Double { double(try column(name)) }

  /// Column `name` as a real, nil when NULL.
  func optionalDouble(_ name: String) throws -> Double? { optionalDouble(try column(name)) }

  /// Column `name` as an integer, nil when NULL.
  func optionalInt64(_ name: String) throws -> Int64? { optionalInt64(try column(name)) }

  /// Column `name` as text, nil when NULL.
  func string(_ name: String) throws -> String? { string(try column(name)) }
}
