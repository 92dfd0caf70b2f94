import Foundation
import MissionCatalog
import Synchronization

/// The tracking leases of one process on PostgreSQL: one worker's lease is a session
/// advisory lock (`pg_try_advisory_lock`, keyed by a 64-bit hash of the worker's id) held
/// on one connection kept for leases only. Every node of the database sees it, and the
/// server releases it when its session ends: the process exits or is killed, its machine
/// goes away, or the connection drops — so a lease never outlives its holder, and a
/// holder that lost its connection has lost its leases too (the next claim reconnects).
///
/// The connection's `application_name` names the process (pid, command and host), so that
/// a refused claim can say who holds the worker. A worker is claimed once per process: a
/// second claim of a worker this process holds is refused as another process's would be
/// (a `flock(2)` lease behaves so on SQLite).
package final class PostgresLeaseHolder: Sendable {
  private let uri: String
  private let state = Mutex(State())

  /// What the lock guards.
  private struct State {
    /// The connection holding the locks, nil before the first claim or after it broke.
    var connection: PostgresConnection?
    /// Which connection `connection` is (a lease releases only on the one it locked on).
    var generation = 0
    /// The workers this process holds, with their lock keys, holders and modes.
    var held: [String: (key: Int64, holder: String, shared: Bool)] = [:]
  }

  /// Leases on the database at `uri` (connected at the first claim).
  init(uri: String) { self.uri = uri }

  /// Takes `worker`'s lease for `holder` (for instance "missiontrack serve"): exclusive, or
  /// `shared` with the other sessions that take it shared.
  /// - Throws: `MissionRefusal.trackingLeaseHeld` naming the holder while another session
  ///   (or this process) holds it in a conflicting mode; `PostgresError` when the server
  ///   cannot be reached.
  func claim(worker: String, holder: String, shared: Bool) throws -> PostgresWorkerLease {
    try state.withLock { state in
      var connection: PostgresConnection
      if let open = state.connection, open.isOpen {
        connection = open
      } else {
        // A new session: the locks of the old one are gone with it.
        connection = try PostgresConnection(uri: uri)
        let name = "pid \(getpid()) (\(holder)) on \(ProcessInfo.processInfo.hostName)"
        try connection.query(
          "SELECT set_config('application_name', :name, false)", ["name": String(name.prefix(63))])
        state.connection = connection
        state.generation += 1
        state.held = [:]
      }
      let database =
        try connection.query("SELECT current_database() AS name").string(0, "name") ?? ""
      if let held = state.held[worker] {
        throw MissionRefusal.trackingLeaseHeld(
          database: database, worker: worker, holder: "pid \(getpid()) (\(held.holder))")
      }
      let claimed = try connection.query(
        """
        SELECT k.key,
          CASE WHEN :shared THEN pg_try_advisory_lock_shared(k.key)
            ELSE pg_try_advisory_lock(k.key) END AS locked
        FROM (SELECT hashtextextended('missiontrack tracking ' || :worker, 0) AS key) AS k
        """, ["worker": worker, "shared": shared])
      let key = claimed.int64(0, "key") ?? 0
      guard claimed.bool(0, "locked") == true else {
        let holder = try connection.query(
          """
          SELECT a.application_name AS holder FROM pg_locks l
          JOIN pg_stat_activity a ON a.pid = l.pid
          WHERE l.locktype = 'advisory' AND l.objsubid = 1 AND l.granted
            AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
            AND ((l.classid::int8 << 32) | l.objid::int8) = :key
          LIMIT 1
          """, ["key": key]
        ).string(0, "holder")
        throw MissionRefusal.trackingLeaseHeld(
          database: database, worker: worker,
          holder: holder.flatMap { $0.isEmpty ? nil : $0 } ?? "another process")
      }
      state.held[worker] = (key, holder, shared)
      return PostgresWorkerLease(holder: self, worker: worker, generation: state.generation)
    }
  }

  /// Gives `worker`'s lease up, when it is still held on the session it was taken on.
  func release(worker: String, generation: Int) {
    state.withLock { state in
      guard state.generation == generation, let held = state.held.removeValue(forKey: worker),
        let connection = state.connection
      else { return }
      // A failure means the session is gone, and its locks with it.
      _ = try? connection.query(
        held.shared ? "SELECT pg_advisory_unlock_shared(:key)" : "SELECT pg_advisory_unlock(:key)",
        ["key": held.key])
    }
  }
}
