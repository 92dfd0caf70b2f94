import CSQLite

extension StoreError {
  /// The error for SQLite's (extended) result code `code`, its message and the SQL that
  /// failed: the one place where result codes are read (GRDB's
  /// `DatabaseError.extendedResultCode`), so that every caller matches a case.
  init(resultCode code: Int32, message: String, sql: String) {
    // The primary result code is the low byte of an extended one.
    switch code & 0xFF {
    case SQLITE_BUSY, SQLITE_LOCKED: self = .busy(message: message, sql: sql)
    case SQLITE_READONLY: self = .readOnly(message: message, sql: sql)
    case SQLITE_NOTADB: self = .notADatabase(message: message, sql: sql)
    case SQLITE_FULL: self = .full(message: message, sql: sql)
    case SQLITE_INTERRUPT: self = .interrupted(message: message, sql: sql)
    case SQLITE_CONSTRAINT:
      self = .constraint(ConstraintKind(extendedCode: code), message: message, sql: sql)
    default: self = .sqlite(code: Int(code), message: message, sql: sql)
    }
  }
}

extension ConstraintKind {
  /// The kind of an extended `SQLITE_CONSTRAINT_*` result code (the high byte says which).
  init(extendedCode code: Int32) {
    switch code >> 8 {
    case 6: self = .primaryKey  // SQLITE_CONSTRAINT_PRIMARYKEY (1555)
    case 8: self = .unique  // SQLITE_CONSTRAINT_UNIQUE (2067)
    case 1: self = .check  // SQLITE_CONSTRAINT_CHECK (275)
    case 5: self = .notNull  // SQLITE_CONSTRAINT_NOTNULL (1299)
    case 3: self = .foreignKey  // SQLITE_CONSTRAINT_FOREIGNKEY (787)
    default: self = .other
    }
  }
}
