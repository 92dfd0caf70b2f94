import CSQLite
import Foundation

/// One SQLite connection: the only place besides `SQLiteStatement` that calls the C API.
///
/// Not thread-safe by itself: `MissionDatabase` serialises every use behind its lock, and the
/// connection is opened with `SQLITE_OPEN_NOMUTEX` for that reason.
final class SQLiteConnection {
  /// The C handle, valid until `close()`.
  private(set) var handle: OpaquePointer?
  /// The file the connection is on (`:memory:` for an in-memory database).
  let path: String
  private var cache: [String: SQLiteStatement] = [:]
  /// What `afterEachCommit(_:)` set.
  private var afterCommit: ((SQLiteConnection, Int) -> Void)?

  /// Process-wide SQLite settings, applied once before the first connection: memory
  /// statistics off (they take a global mutex on every allocation). If SQLite was already
  /// initialised by someone else the call fails harmlessly and the default stays.
  private static let configured: Bool = missiontrack_sqlite_disable_memstatus() == SQLITE_OK

  /// Opens (and, unless `readOnly`, creates) the database at `path`.
  ///
  /// A read-only open of a file in a directory nobody may write to, with no WAL file beside
  /// it, opens the file as immutable: SQLite would otherwise need to create the WAL index
  /// (`-shm`) there and fail, although no other process can be writing to it (a writer
  /// needs the same directory for its WAL).
  /// - Throws: The `StoreError` of SQLite's code, with its message.
  init(path: String, readOnly: Bool) throws {
    _ = Self.configured
    self.path = path
    var db: OpaquePointer?
    var flags =
      (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE))
      | SQLITE_OPEN_NOMUTEX
    var name = path
    if readOnly, path != ":memory:", Self.isInReadOnlyDirectory(path),
      access(path + "-wal", F_OK) != 0
    {
      name = "file:" + Self.uriEscaped(path) + "?immutable=1"
      flags |= SQLITE_OPEN_URI
    }
    let rc = sqlite3_open_v2(name, &db, flags, nil)
    guard rc == SQLITE_OK, let db else {
      let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
      sqlite3_close_v2(db)
      throw StoreError(resultCode: rc, message: message, sql: "open \(path)")
    }
    sqlite3_extended_result_codes(db, 1)
    handle = db
  }

  deinit { close() }

  /// Whether the directory holding `path` cannot be written by this process.
  private static func isInReadOnlyDirectory(_ path: String) -> Bool {
    let directory =
      path.contains("/") ? String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]) : "."
    return access(directory.isEmpty ? "/" : directory, W_OK) != 0
  }

  /// `path` with the characters a URI filename gives a meaning (`%`, `?`, `#`) escaped.
  private static func uriEscaped(_ path: String) -> String {
    var out: [UInt8] = []
    for byte in path.utf8 {
      switch byte {
      case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"):
        out.append(contentsOf: ("%" + String(byte, radix: 16, uppercase: true)).utf8)
      default: out.append(byte)
      }
    }
    return String(decoding: out, as: UTF8.self)
  }

  /// Finalises cached statements and closes the connection; idempotent.
  func close() {
    for statement in cache.values { statement.finalize() }
    cache = [:]
    if let handle { sqlite3_close_v2(handle) }
    handle = nil
  }

  /// The live handle, or `StoreError.closed`.
  func liveHandle() throws -> OpaquePointer {
    guard let handle else { throw StoreError.closed(path: path) }
    return handle
  }

  /// The error for result code `code` from running `sql`.
  func error(_ code: Int32, sql: String) -> StoreError {
    let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "connection closed"
    return StoreError(resultCode: code, message: message, sql: sql)
  }

  /// Sets how long a statement waits for another connection's lock before `SQLITE_BUSY`.
  func setBusyTimeout(milliseconds: Int) throws {
    let rc = sqlite3_busy_timeout(try liveHandle(), Int32(clamping: milliseconds))
    guard rc == SQLITE_OK else { throw error(rc, sql: "sqlite3_busy_timeout") }
  }

  /// Runs SQL without parameters (one or several statements): schema, pragmas with constant
  /// values, `BEGIN`/`COMMIT`. Values are never spliced into it.
  func execute(_ sql: String) throws {
    var message: UnsafeMutablePointer<CChar>?
    let rc = sqlite3_exec(try liveHandle(), sql, nil, nil, &message)
    guard rc == SQLITE_OK else {
      let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
      sqlite3_free(message)
      throw StoreError(resultCode: rc, message: text, sql: sql)
    }
  }

  /// Compiles `sql` into a new statement (finalised when released).
  func prepare(_ sql: String) throws -> SQLiteStatement {
    var statement: OpaquePointer?
    let rc = sqlite3_prepare_v3(
      try liveHandle(), sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
    guard rc == SQLITE_OK, let statement else { throw error(rc, sql: sql) }
    return SQLiteStatement(handle: statement, sql: sql, connection: self)
  }

  /// The statement for `sql`, prepared on first use and reused afterwards (reset; every
  /// caller binds all parameters).
  func cached(_ sql: String) throws -> SQLiteStatement {
    if let statement = cache[sql] {
      statement.rewind()
      return statement
    }
    let statement = try prepare(sql)
    cache[sql] = statement
    return statement
  }

  /// Calls `body` after each commit of this connection, on the committing thread, with the
  /// connection and the write-ahead log's length in pages; SQLite then no longer
  /// checkpoints by itself after a commit (`wal_autocheckpoint` and this share one slot).
  func afterEachCommit(_ body: @escaping (SQLiteConnection, Int) -> Void) throws {
    let handle = try liveHandle()
    afterCommit = body
    sqlite3_wal_hook(
      handle,
      { context, _, _, pages in
        guard let context else { return SQLITE_OK }
        let connection = Unmanaged<SQLiteConnection>.fromOpaque(context).takeUnretainedValue()
        connection.afterCommit?(connection, Int(pages))
        return SQLITE_OK
      }, Unmanaged.passUnretained(self).toOpaque())
  }

  /// Copies into the database file what of the write-ahead log no reader still needs,
  /// waiting for no lock (`SQLITE_CHECKPOINT_PASSIVE`).
  /// - Throws: `StoreError` for SQLite's error (`SQLITE_BUSY` when another connection
  ///   checkpoints).
  func checkpointPassively() throws {
    let rc = sqlite3_wal_checkpoint_v2(try liveHandle(), nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
    guard rc == SQLITE_OK else { throw error(rc, sql: "PRAGMA wal_checkpoint(PASSIVE)") }
  }

  /// Rows changed by the last INSERT, UPDATE or DELETE.
  var changes: Int { handle.map { Int(sqlite3_changes($0)) } ?? 0 }

  /// Whether a transaction is open (autocommit is off).
  var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

  /// Runs `body` in a transaction that commits when it returns and rolls back when it throws.
  ///
  /// `BEGIN IMMEDIATE` takes the write lock at once, so a busy database waits for
  /// `busy_timeout` at the start instead of failing when a read would upgrade to a write.
  func transaction<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN IMMEDIATE")
    let result: T
    do {
      result = try body()
    } catch {
      try? execute("ROLLBACK")
      throw error
    }
    do {
      try execute("COMMIT")
    } catch {
      if isInTransaction { try? execute("ROLLBACK") }
      throw error
    }
    return result
  }

  /// Runs `body` inside a read transaction (`BEGIN DEFERRED`): every statement sees the
  /// same snapshot of the file.
  func transactionForReading<T>(_ body: () throws -> T) throws -> T {
    try execute("BEGIN DEFERRED")
    defer { try? execute("COMMIT") }
    return try body()
  }

  /// The first column of the first row of `sql` as an integer (for pragmas and counts).
  func integer(_ sql: String) throws -> Int64? {
    let statement = try cached(sql)
    defer { statement.reset() }
    return try statement.step() ? statement.int64(statement.onlyColumn) : nil
  }

  /// The first column of every row of `sql` as text.
  func strings(_ sql: String) throws -> [String] {
    let statement = try prepare(sql)
    var rows: [String] = []
    while try statement.step() { rows.append(statement.string(statement.onlyColumn) ?? "") }
    return rows
  }
}
