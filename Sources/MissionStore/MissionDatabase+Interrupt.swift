import CSQLite

extension MissionDatabase {
  /// Makes the statement this connection runs now fail with `SQLITE_INTERRUPT`, which rolls
  /// back the transaction it writes in, and an import still reading its file stop with
  /// `StoreError.interrupted`: how a stopping server ends a long import at once.
  ///
  /// Callable from any thread and without the lock (the import holds it); a no-op when no
  /// statement runs and no import reads. Must not race `close()`, as SQLite requires of
  /// `sqlite3_interrupt`.
  package func interrupt() {
    interruptions.add(1, ordering: .sequentiallyConsistent)
    if let handle = connection?.handle { sqlite3_interrupt(handle) }
  }

  /// Whether `interrupt()` has been called since this check was made: for the phases of an
  /// import that run no statement, which SQLite's interrupt does not reach (it stops only a
  /// statement running at that moment). Callable from any thread.
  func interruptCheck() -> @Sendable () -> Bool {
    let start = interruptions.load(ordering: .sequentiallyConsistent)
    return { self.interruptions.load(ordering: .sequentiallyConsistent) != start }
  }
}
