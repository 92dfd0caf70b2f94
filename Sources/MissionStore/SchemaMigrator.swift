import Foundation

/// Brings a connection's schema to the latest version, or refuses a newer one untouched.
struct SchemaMigrator {
  /// The ordered steps (versions 1…n).
  let migrations: [SchemaMigration]

  /// The version the steps lead to.
  var latestVersion: Int { migrations.last?.version ?? 0 }

  /// The database's `user_version`.
  static func version(of connection: SQLiteConnection) throws -> Int {
    Int(try connection.integer("PRAGMA user_version") ?? 0)
  }

  /// Fails with `StoreError.newerSchema` when the file is ahead of us; reads only.
  func refuseNewer(_ connection: SQLiteConnection) throws {
    let found = try Self.version(of: connection)
    if found > latestVersion {
      throw StoreError.newerSchema(
        path: connection.path, found: found, supported: latestVersion)
    }
  }

  /// Applies the missing steps in one transaction (all or none) and returns how many ran.
  ///
  /// The version is re-read inside the write transaction, so two processes opening a new
  /// file at once migrate it once.
  @discardableResult
  func migrate(_ connection: SQLiteConnection, now: Date = Date()) throws -> Int {
    try connection.transaction {
      let found = try Self.version(of: connection)
      if found > latestVersion {
        throw StoreError.newerSchema(
          path: connection.path, found: found, supported: latestVersion)
      }
      let pending = migrations.filter { $0.version > found }
      for step in pending {
        try step.edit?.apply(connection)
        try connection.execute(step.sql)
        let record = try connection.cached(
          """
          INSERT INTO schema_migrations (version, name, applied_us)
          VALUES (:version, :name, :applied)
          """)
        try record.bind(["version": step.version, "name": step.name, "applied": microseconds(now)])
        try record.run()
        // PRAGMA cannot take a bound parameter; the value is our own integer constant.
        try connection.execute("PRAGMA user_version = \(step.version)")
      }
      return pending.count
    }
  }
}

/// Microseconds since 1970-01-01T00:00:00Z, rounded: the stored form of every time.
func microseconds(_ date: Date) -> Int64 {
  Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
}

/// The date `value` microseconds after 1970-01-01T00:00:00Z.
func date(microseconds value: Int64) -> Date {
  Date(timeIntervalSince1970: Double(value) / 1_000_000)
}
