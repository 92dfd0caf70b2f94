import CSQLite

/// A prepared statement: bind by 1-based index, step, read columns by 0-based index.
///
/// Internal: raw C calls stay in this layer and `SQLiteConnection`.
final class SQLiteStatement {
  private var handle: OpaquePointer?
  /// The SQL text, carried into every error.
  let sql: String
  private unowned let connection: SQLiteConnection

  init(handle: OpaquePointer, sql: String, connection: SQLiteConnection) {
    self.handle = handle
    self.sql = sql
    self.connection = connection
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

  /// Binds an integer, or NULL.
  func bind(_ value: Int64?, at index: Int32) throws {
    let h = try live()
    if let value {
      try check(sqlite3_bind_int64(h, index, value))
    } else {
      try check(sqlite3_bind_null(h, index))
    }
  }

  /// Binds an integer, or NULL.
  func bind(_ value: Int?, at index: Int32) throws {
    try bind(value.map { Int64($0) }, at: index)
  }

  /// Binds a real, or NULL (also for non-finite values, which SQLite would store as NULL or
  /// reject in CHECKs anyway).
  func bind(_ value: Double?, at index: Int32) throws {
    let h = try live()
    if let value, !value.isNaN {
      try check(sqlite3_bind_double(h, index, value))
    } else {
      try check(sqlite3_bind_null(h, index))
    }
  }

  /// Binds UTF-8 text (copied by SQLite), or NULL.
  func bind(_ value: String?, at index: Int32) throws {
    let h = try live()
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

  /// Runs one step: true when a row is available, false when done.
  /// - Throws: `StoreError.sqlite` with the code, message and this statement's SQL.
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

  /// Whether column `index` of the current row is NULL.
  func isNull(at index: Int32) -> Bool {
    guard let handle else { return true }
    return sqlite3_column_type(handle, index) == SQLITE_NULL
  }

  /// Column `index` as an integer (0 when NULL).
  func int64(at index: Int32) -> Int64 {
    guard let handle else { return 0 }
    return sqlite3_column_int64(handle, index)
  }

  /// Column `index` as a real (0 when NULL).
  func double(at index: Int32) -> Double {
    guard let handle else { return 0 }
    return sqlite3_column_double(handle, index)
  }

  /// Column `index` as a real, nil when NULL.
  func optionalDouble(at index: Int32) -> Double? {
    isNull(at: index) ? nil : double(at: index)
  }

  /// Column `index` as an integer, nil when NULL.
  func optionalInt64(at index: Int32) -> Int64? {
    isNull(at: index) ? nil : int64(at: index)
  }

  /// Column `index` as text, nil when NULL.
  func string(at index: Int32) -> String? {
    guard let handle, let text = sqlite3_column_text(handle, index) else { return nil }
    let count = Int(sqlite3_column_bytes(handle, index))
    return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
  }

  /// Calls `body` with column `index`'s UTF-8 bytes (no copy; valid only inside `body`).
  func withUTF8<T>(at index: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
    guard let handle, let text = sqlite3_column_text(handle, index) else {
      return body(UnsafeBufferPointer(start: nil, count: 0))
    }
    return body(UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index))))
  }
}
