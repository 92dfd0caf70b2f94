import CLibpq
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One libpq connection: the only place that calls libpq (with `PostgresRows`, which reads
/// its results). Everything above it speaks Swift values and `PostgresError`.
///
/// Statements are written with named parameters (`:name`), prepared once per connection
/// and executed with their arguments in text format; rows are read by column name.
///
/// `@unchecked Sendable` only so that it can move between threads: its state (libpq's
/// handle, the prepared statements) is not locked, and one owner uses it at a time — the
/// pool of `PostgresDatabase` lends each connection to one call (`withConnection`) and takes
/// it back after, and a change waiter's thread keeps its own. `cancel()` alone may be called
/// from another thread: it reads only the cancel object made at connection, with `PQcancel`,
/// which libpq makes safe for that.
final class PostgresConnection: @unchecked Sendable {
  /// A `NOTIFY` received on a channel this connection listens to.
  struct Notification: Sendable, Hashable {
    /// The channel.
    var channel: String
    /// The payload ('' when none was given).
    var payload: String
  }

  private let handle: OpaquePointer
  /// libpq's cancel request of this connection, made once: `PQcancel` on it may be sent
  /// from any thread while another uses the connection.
  private let cancelHandle: OpaquePointer?
  /// Prepared statements by their named-parameter SQL: the server's name and the
  /// parameter names in `$n` order.
  private var prepared: [String: (name: String, parameters: [String])] = [:]

  /// Connects to `uri` (any libpq connection string or URI).
  /// - Throws: `PostgresError` of kind `.connectionLost` when the server cannot be reached
  ///   or refuses the login, with libpq's message.
  init(uri: String) throws(PostgresError) {
    guard let handle = PQconnectdb(uri) else {
      throw PostgresError(kind: .connectionLost, message: "cannot connect: out of memory")
    }
    guard PQstatus(handle) == CONNECTION_OK else {
      let message = Self.message(of: handle)
      PQfinish(handle)
      throw PostgresError(kind: .connectionLost, message: "cannot connect: \(message)")
    }
    self.handle = handle
    cancelHandle = PQgetCancel(handle)
    // libpq prints notices and asynchronous errors (a server's shutdown notice) to stderr;
    // errors reach the caller as `PostgresError` instead.
    PQsetNoticeProcessor(handle, { _, _ in }, nil)
    // Notices ("extension … already exists, skipping") would go to stderr.
    try execute("SET client_min_messages = warning")
  }

  deinit {
    if let cancelHandle { PQfreeCancel(cancelHandle) }
    PQfinish(handle)
  }

  /// Asks the server to cancel the statement running now on this connection, if any; safe
  /// from any thread (the statement then fails with SQLSTATE 57014).
  func cancel() {
    guard let cancelHandle else { return }
    var message = [CChar](repeating: 0, count: 256)
    _ = PQcancel(cancelHandle, &message, Int32(message.count))
  }

  /// Whether libpq still considers the connection usable.
  var isOpen: Bool { PQstatus(handle) == CONNECTION_OK }

  /// Runs `sql` (one or more statements, no parameters) with the simple query protocol.
  func execute(_ sql: String) throws(PostgresError) {
    _ = try check(PQexec(handle, sql), sql: sql)
  }

  /// Runs one statement with named arguments, prepared on first use and reused after.
  /// - Returns: its rows (empty for a statement that returns none).
  @discardableResult
  func query(_ sql: String, _ arguments: PostgresArguments = [:]) throws(PostgresError)
    -> PostgresRows
  {
    let statement = try prepare(sql)
    var values: [UnsafeMutablePointer<CChar>?] = []
    values.reserveCapacity(statement.parameters.count)
    defer { for value in values { free(value) } }
    for name in statement.parameters {
      guard let argument = arguments[name] else {
        throw PostgresError(kind: .other, message: "no argument for :\(name)", sql: sql)
      }
      values.append(argument.postgresText.flatMap { strdup($0) })
    }
    let result = values.withUnsafeBufferPointer { buffer in
      guard let base = buffer.baseAddress else {
        return PQexecPrepared(handle, statement.name, 0, nil, nil, nil, 0)
      }
      return base.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
        PQexecPrepared(handle, statement.name, Int32(buffer.count), $0, nil, nil, 0)
      }
    }
    return try check(result, sql: sql)
  }

  /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
  /// - Throws: what `body` throws; `PostgresError` of kind `.commitOutcomeUnknown` when the
  ///   connection broke during `COMMIT`.
  func transaction<T>(
    isolation: String? = nil, waitingForDisk: Bool = true, _ body: () throws -> T
  ) throws -> T {
    var begin = isolation.map { "BEGIN ISOLATION LEVEL \($0)" } ?? "BEGIN"
    if !waitingForDisk { begin += "; SET LOCAL synchronous_commit TO off" }
    try execute(begin)
    let value: T
    do {
      value = try body()
    } catch {
      if isOpen { try? execute("ROLLBACK") }
      throw error
    }
    do {
      try execute("COMMIT")
    } catch {
      guard error.kind == .connectionLost else { throw error }
      throw PostgresError(
        kind: .commitOutcomeUnknown, sqlState: error.sqlState,
        message: "the connection broke during COMMIT: \(error.message)", sql: "COMMIT")
    }
    return value
  }

  /// Starts listening to `channel` (an identifier of ours, quoted here).
  func listen(_ channel: String) throws(PostgresError) {
    try execute("LISTEN \"" + channel.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
  }

  /// The notifications received, waiting on the connection's socket up to `timeout` when
  /// none has arrived yet.
  /// - Throws: `PostgresError` of kind `.connectionLost` when the connection broke.
  func notifications(waitingAtMost timeout: Duration) throws(PostgresError) -> [Notification] {
    guard PQconsumeInput(handle) == 1 else { throw lost() }
    var received = drainNotifications()
    if !received.isEmpty { return received }
    let socket = PQsocket(handle)
    guard socket >= 0 else { throw lost() }
    var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
    let (seconds, attoseconds) = timeout.components
    let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
    let ready = poll(&descriptor, 1, milliseconds)
    if ready < 0 && errno != EINTR {
      throw PostgresError(kind: .connectionLost, message: "poll failed: errno \(errno)")
    }
    if ready > 0 {
      guard PQconsumeInput(handle) == 1, isOpen else { throw lost() }
      received = drainNotifications()
    }
    return received
  }

  /// Runs `COPY … FROM STDIN` (`sql`) and sends `chunks` as its data (in the format `sql`
  /// names), all in one statement.
  /// - Returns: the number of rows copied.
  func copy(_ sql: String, from chunks: some Sequence<[UInt8]>) throws(PostgresError) -> Int {
    guard let start = PQexec(handle, sql) else { throw lost(sql: sql) }
    guard PQresultStatus(start) == PGRES_COPY_IN else {
      _ = try check(start, sql: sql)
      throw PostgresError(kind: .other, message: "not a COPY FROM STDIN statement", sql: sql)
    }
    PQclear(start)
    for chunk in chunks where !chunk.isEmpty {
      let sent = chunk.withUnsafeBufferPointer { buffer in
        buffer.baseAddress.map { base in
          base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
            PQputCopyData(handle, $0, Int32(buffer.count))
          }
        } ?? 1
      }
      guard sent == 1 else { throw lost(sql: sql) }
    }
    guard PQputCopyEnd(handle, nil) == 1 else { throw lost(sql: sql) }
    var copied = 0
    var failure: PostgresError?
    while let result = PQgetResult(handle) {
      do throws(PostgresError) {
        copied = try check(result, sql: sql).affectedRows
      } catch {
        failure = failure ?? error
      }
    }
    if let failure { throw failure }
    return copied
  }

  // MARK: - Internals

  private func prepare(_ sql: String) throws(PostgresError) -> (name: String, parameters: [String])
  {
    if let statement = prepared[sql] { return statement }
    let (text, parameters) = Self.positional(sql)
    let name = "s\(prepared.count)"
    _ = try check(PQprepare(handle, name, text, Int32(parameters.count), nil), sql: sql)
    let statement = (name, parameters)
    prepared[sql] = statement
    return statement
  }

  /// `sql` with every `:name` outside quotes replaced by `$n` (one number per distinct
  /// name), and the names in number order. `::type` casts are left alone.
  static func positional(_ sql: String) -> (sql: String, parameters: [String]) {
    let bytes = Array(sql.utf8)
    var output: [UInt8] = []
    output.reserveCapacity(bytes.count)
    var names: [String] = []
    var quote: UInt8?
    var index = 0
    func isNameByte(_ byte: UInt8, first: Bool) -> Bool {
      byte == UInt8(ascii: "_") || (65...90).contains(byte) || (97...122).contains(byte)
        || (!first && (48...57).contains(byte))
    }
    while index < bytes.count {
      let byte = bytes[index]
      if let open = quote {
        if byte == open { quote = nil }
        output.append(byte)
        index += 1
        continue
      }
      if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
        quote = byte
      } else if byte == UInt8(ascii: ":"), index + 1 < bytes.count {
        if bytes[index + 1] == UInt8(ascii: ":") {
          output.append(contentsOf: [byte, byte])
          index += 2
          continue
        }
        if isNameByte(bytes[index + 1], first: true) {
          var end = index + 1
          while end < bytes.count, isNameByte(bytes[end], first: false) { end += 1 }
          let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
          let number: Int
          if let known = names.firstIndex(of: name) {
            number = known + 1
          } else {
            names.append(name)
            number = names.count
          }
          output.append(contentsOf: Array("$\(number)".utf8))
          index = end
          continue
        }
      }
      output.append(byte)
      index += 1
    }
    return (String(decoding: output, as: UTF8.self), names)
  }

  /// The rows of a successful result; the typed error of a failed one (freed).
  private func check(_ result: OpaquePointer?, sql: String?) throws(PostgresError)
    -> PostgresRows
  {
    guard let result else { throw lost(sql: sql) }
    switch PQresultStatus(result) {
    case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
      return PostgresRows(taking: result)
    default:
      let error = self.error(from: result, sql: sql)
      PQclear(result)
      throw error
    }
  }

  private func error(from result: OpaquePointer, sql: String?) -> PostgresError {
    func field(_ code: Character) -> String? {
      guard let ascii = code.asciiValue, let text = PQresultErrorField(result, Int32(ascii))
      else { return nil }
      return String(cString: text)
    }
    let message = field("M") ?? PQresultErrorMessage(result).map { String(cString: $0) } ?? ""
    guard let state = field("C") else {
      // libpq's own failures carry no SQLSTATE: a broken connection is the one that matters.
      return isOpen
        ? PostgresError(kind: .other, message: message, sql: sql)
        : PostgresError(kind: .connectionLost, message: Self.message(of: handle), sql: sql)
    }
    let kind = isOpen ? PostgresError.Kind(sqlState: state) : .connectionLost
    return PostgresError(
      kind: kind, sqlState: state, message: message, constraint: field("n"), sql: sql)
  }

  private func lost(sql: String? = nil) -> PostgresError {
    PostgresError(kind: .connectionLost, message: Self.message(of: handle), sql: sql)
  }

  private func drainNotifications() -> [Notification] {
    var received: [Notification] = []
    while let notice = PQnotifies(handle) {
      received.append(
        Notification(
          channel: String(cString: notice.pointee.relname),
          payload: String(cString: notice.pointee.extra)))
      PQfreemem(notice)
    }
    return received
  }

  private static func message(of handle: OpaquePointer) -> String {
    let text = PQerrorMessage(handle).map { String(cString: $0) } ?? ""
    let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
    return line.isEmpty ? "connection lost" : line
  }
}
