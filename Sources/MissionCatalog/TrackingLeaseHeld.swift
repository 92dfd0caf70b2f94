import TextRules

/// Another process tracks `worker` on this database (one tracking writer per worker): the
/// refusal of a `TrackingLeaseStore` and its one line, in one place for SQLite and
/// PostgreSQL.
package struct TrackingLeaseHeld: Error, Sendable, Equatable, CustomStringConvertible {
  /// The database as the user named it.
  package var database: String
  /// The worker (its id in NFC).
  package var worker: String
  /// Who holds the lease: `pid N (missiontrack replay)`, or "another process" when that is
  /// not known.
  package var holder: String

  /// Creates the refusal.
  package init(database: String, worker: String, holder: String) {
    self.database = database
    self.worker = worker
    self.holder = holder
  }

  /// One line naming the worker, the database and the holder.
  package var description: String {
    "worker \(oneLine(worker)) on database \(database) is already being tracked by "
      + "\(oneLine(holder)); only one process may track a worker at a time"
  }
}
