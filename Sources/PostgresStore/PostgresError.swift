import MissionCatalog

/// An error from PostgreSQL or libpq, typed by its SQLSTATE in one place (`Kind(sqlState:)`),
/// with the server's message, the constraint it names and the SQL that failed.
package struct PostgresError: StoreAvailability, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong, as far as a caller decides on it.
  package enum Kind: Sendable, Equatable {
    /// A unique index or primary key refused a row (23505); `constraint` names it.
    case uniqueViolation
    /// A foreign key refused a row (23503); `constraint` names it.
    case foreignKeyViolation
    /// A CHECK constraint refused a row (23514).
    case checkViolation
    /// One statement would change a row twice (21000), e.g. a duplicated id in an import.
    case cardinalityViolation
    /// The transaction lost a serialization conflict (40001); it may be retried.
    case serializationFailure
    /// The transaction was chosen as a deadlock victim (40P01); it may be retried.
    case deadlock
    /// The server cannot be reached, or the connection broke before a commit was sent
    /// (class 08, an administrator's shutdown, a server starting up): nothing of the open
    /// transaction was applied, so it may be retried on a new connection.
    case connectionLost
    /// The connection broke while `COMMIT` was in flight: the transaction may or may not
    /// have been applied, so it must not be retried blindly.
    case commitOutcomeUnknown
    /// The database was written by a newer schema than this build knows.
    case newerSchema
    /// Anything else (syntax, a bad value, a refused login …).
    case other

    /// The one mapping from SQLSTATE codes to kinds.
    init(sqlState: String) {
      switch sqlState {
      case "23505": self = .uniqueViolation
      case "23503": self = .foreignKeyViolation
      case "23514": self = .checkViolation
      case "21000": self = .cardinalityViolation
      case "40001": self = .serializationFailure
      case "40P01": self = .deadlock
      // admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down).
      case "57P01", "57P02", "57P03": self = .connectionLost
      default: self = sqlState.hasPrefix("08") ? .connectionLost : .other
      }
    }
  }

  /// What went wrong.
  package var kind: Kind
  /// The five-character SQLSTATE, when the server sent one.
  package var sqlState: String?
  /// The server's (or libpq's) message, on one line.
  package var message: String
  /// The constraint the server named (for violations).
  package var constraint: String?
  /// The statement that failed, if any.
  package var sql: String?

  /// Creates an error.
  package init(
    kind: Kind, sqlState: String? = nil, message: String, constraint: String? = nil,
    sql: String? = nil
  ) {
    self.kind = kind
    self.sqlState = sqlState
    self.message = message
    self.constraint = constraint
    self.sql = sql
  }

  /// Whether the server could not take the statement now: it is away (after the store
  /// waited for it) or the statement was cancelled (`PostgresDatabase.interrupt()`, SQLSTATE
  /// 57014), so the caller may try again later.
  package var isUnavailable: Bool {
    kind == .connectionLost || sqlState == "57014"
  }

  /// Whether running the same transaction again on a (new) connection may succeed.
  package var isRetryable: Bool {
    kind == .connectionLost || kind == .serializationFailure || kind == .deadlock
  }

  /// One line: the message, the SQLSTATE and the start of the SQL.
  package var description: String {
    var line = "PostgreSQL: " + message.split(whereSeparator: \.isNewline).joined(separator: " ")
    if let sqlState { line += " [\(sqlState)]" }
    if let sql {
      let flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
      line += " in: " + (flat.count > 120 ? flat.prefix(120) + "…" : flat)
    }
    return line
  }
}
