import Foundation
import MissionCatalog

/// The right to track one worker on one PostgreSQL database: held by one process at a time,
/// across every machine that reaches the database (another worker's tracker runs beside it).
///
/// It is a session advisory lock (`pg_try_advisory_lock`) on a connection of its own, which
/// the lease owns and nothing else uses. A session lock lives exactly as long as the
/// server-side session, and the session as long as the holder's connection, so:
/// - the lease dies with its holder, however the holder exits: a killed process's socket is
///   closed by its kernel, the server ends the session at once and frees the lock, with no
///   expiry to wait out and nothing left behind to clean up;
/// - a holder whose machine or network goes away is noticed by the server's TCP keepalives
///   (set on the lease's session: 10 s idle, then 3 probes 5 s apart), so its lease is freed
///   within about 25 s;
/// - the holder is named by the session's `application_name` (`pid N (missiontrack
///   replay)`), which any role may read in `pg_stat_activity`, for the refusal another
///   process gets.
///
/// A lease row with an expiry was the other choice: it needs a heartbeat, outlives a killed
/// holder until it expires (so a restarted tracker must wait or steal it), and a heartbeat
/// that stalls (a paused process, a slow disk) loses the lease while its holder still runs.
/// The lock has none of that. What it shares with a row: a holder whose lease connection
/// breaks (the server restarted) has lost the lease without noticing, and a second tracker
/// of the worker may then start beside it (docs/limitations.md).
///
/// The lock's key is `hashtextextended('missiontrack tracking lease ' || worker, 0)`, one of
/// 2^64 per database, so two workers share a lease only by a hash collision.
///
/// `@unchecked Sendable`: `connection` is only touched while holding `lock`.
package final class PostgresTrackingLease: TrackingLeaseHandle, @unchecked Sendable {
  /// The worker whose lease this is (its id in NFC).
  package let worker: String
  private let lock = NSLock()
  private var connection: PostgresConnection?

  /// Connects for a lease on `worker` and names the session after this process and
  /// `holder`; takes nothing yet (`tryTake()`).
  /// - Throws: `PostgresError` when the server cannot be reached.
  init(uri: String, worker: String, holder: String) throws(PostgresError) {
    self.worker = worker
    let connection = try PostgresConnection(uri: uri)
    try connection.query(
      "SELECT set_config('application_name', :name, false)",
      ["name": "pid \(getpid()) (\(holder))"])
    try connection.execute(
      "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5; "
        + "SET tcp_keepalives_count = 3")
    self.connection = connection
  }

  deinit { release() }

  /// The lock's key, for `:worker`.
  private static let key = "hashtextextended('missiontrack tracking lease ' || :worker, 0)"

  /// Takes the lock when no other session holds it.
  /// - Returns: whether this lease holds it now.
  /// - Throws: `PostgresError`.
  func tryTake() throws -> Bool {
    try lock.withLock {
      guard let connection else { return false }
      let rows = try connection.query(
        "SELECT pg_try_advisory_lock(\(Self.key)) AS taken", ["worker": worker])
      return rows.bool(0, "taken") == true
    }
  }

  /// The `application_name` of the session that holds the lock in this database now, nil
  /// when none does (it was just released) or it has none.
  func holder() throws -> String? {
    try lock.withLock {
      guard let connection else { return nil }
      // A bigint key shows in pg_locks as its high and low 32 bits, objsubid 1.
      let rows = try connection.query(
        """
        WITH lease AS (SELECT \(Self.key) AS key)
        SELECT a.application_name AS holder
        FROM lease, pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
          AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND l.classid::int8 = (lease.key >> 32) & 4294967295
          AND l.objid::int8 = lease.key & 4294967295
        """, ["worker": worker])
      return rows.string(0, "holder").flatMap { $0.isEmpty ? nil : $0 }
    }
  }

  /// Gives the lease up: unlocks at once (so a claim right after this succeeds) and closes
  /// the connection. Also done when the lease is deallocated; the server does it when the
  /// process exits.
  package func release() {
    lock.withLock {
      guard let connection else { return }
      try? connection.execute("SELECT pg_advisory_unlock_all()")
      self.connection = nil
    }
  }
}
