import CSQLite

extension MissionDatabase {
  /// Makes the statement this connection runs now fail with `SQLITE_INTERRUPT`, which rolls
  /// back the transaction it writes in: how a stopping server ends a long import at once.
  ///
  /// Callable from any thread and without the lock (the import holds it); a no-op when no
  /// statement runs. Must not race `close()`, as SQLite requires of `sqlite3_interrupt`.
  package func interrupt() {
    if let handle = connection?.handle { sqlite3_interrupt(handle) }
  }
}
