import Dispatch
import Foundation
import MissionTracking
import Synchronization

/// The mission store on PostgreSQL + PostGIS (DESIGN §10): the engine's `TrackingStore`,
/// shared by any number of processes on any machines.
///
/// Synchronous, like the SQLite store, so that both are called the same way from the HTTP
/// server's threads: a call blocks its thread until the server answers. Calls from several
/// threads run at once on a small pool of connections (at most `maximumConnections`; a
/// call beyond them waits for one to be given back).
///
/// A connection that breaks is dropped and replaced with back-off (50 ms doubling to 2 s,
/// sleeping the calling thread) for up to `reconnectTimeout`; a transaction that failed
/// before its `COMMIT` was sent is then run again (the server rolled it back), as is one
/// that lost a serialization conflict. A transaction whose `COMMIT` was cut off is never run
/// again: its error (`PostgresError.Kind.commitOutcomeUnknown`) reaches the caller.
///
/// Every write is committed when its call returns, visible to every node. `record`'s
/// commits do not wait for the disk: `flush()` does, once for all of them (group commit, as
/// the SQLite store's), and what is acknowledged as durable (a phone's batch) is flushed
/// first. Another record becomes durable within the server's WAL writer delay
/// (`wal_writer_delay`, 200 ms by default; at most three times that) or the next flush.
package final class PostgresDatabase: Sendable {
  /// The libpq connection URI (`postgresql://USER@HOST:PORT/DB`).
  package let uri: String
  /// How long an operation waits for the server to come back before it fails.
  package let reconnectTimeout: Duration
  /// How many connections at most are open at once.
  package let maximumConnections: Int
  /// The idle connections and the count of broken ones replaced.
  private let pool: Mutex<Pool>
  /// One permit per connection that may be lent at once.
  private let permits: DispatchSemaphore
  /// The tracking leases of this process, on a connection of their own.
  let leases: PostgresLeaseHolder

  /// What the pool's lock guards.
  private struct Pool {
    /// Connections given back, ready for the next call.
    var idle: [PostgresConnection] = []
    /// Connections lent to a call now (for `interrupt()`).
    var lent: [ObjectIdentifier: PostgresConnection] = [:]
    /// How many times a broken connection was replaced.
    var reconnects = 0
    /// Commits made without waiting for the disk since the last `flush()` began.
    var unflushedCommits = 0
  }

  /// Connects to `uri` and brings the schema up to date.
  /// - Parameters:
  ///   - uri: Any libpq connection string or URI.
  ///   - reconnectTimeout: How long a call waits for a server that went away.
  ///   - maximumConnections: The pool's bound, ≥ 1.
  /// - Throws: `PostgresError` when the server cannot be reached now (no retry: a wrong URI
  ///   fails at once) or the schema is newer than this build's.
  package init(uri: String, reconnectTimeout: Duration = .seconds(30), maximumConnections: Int = 8)
    throws
  {
    self.uri = uri
    self.reconnectTimeout = reconnectTimeout
    self.maximumConnections = max(1, maximumConnections)
    let connection = try PostgresConnection(uri: uri)
    try PostgresMigration.migrate(connection)
    pool = Mutex(Pool(idle: [connection]))
    permits = DispatchSemaphore(value: self.maximumConnections)
    leases = PostgresLeaseHolder(uri: uri)
  }

  /// How many times a broken connection was replaced (for `/healthz` and tests).
  package var reconnects: Int { pool.withLock { $0.reconnects } }

  /// Runs `body` in a transaction whose commit does not wait for the disk; the next
  /// `flush()` waits for it.
  func transactionNotWaitingForDisk<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    let value = try withConnection { connection in
      try connection.transaction(waitingForDisk: false) { try body(connection) }
    }
    pool.withLock { $0.unflushedCommits += 1 }
    return value
  }

  /// Waits until every commit made so far is on disk: when one did not wait, one small
  /// write whose commit waits for the write-ahead log up to itself, which follows theirs.
  package func flush() throws {
    let pending = pool.withLock { $0.unflushedCommits }
    guard pending > 0 else { return }
    _ = try withConnection { connection in
      try connection.query(
        """
        INSERT INTO durability_marks (slot, marked) VALUES (:slot, now())
        ON CONFLICT (slot) DO UPDATE SET marked = excluded.marked
        """, ["slot": Int(getpid() % 1024)])
    }
    pool.withLock { $0.unflushedCommits -= pending }
  }

  /// Runs `body` on a connection of the pool, replacing a broken one and running `body`
  /// again when that is safe (see the type's documentation). `body` must not call the store
  /// again (it would wait for a second connection while holding one).
  /// - Parameter reconnecting: Wait for a server that went away (up to `reconnectTimeout`);
  ///   false fails at once (a health check must answer now).
  func withConnection<T>(reconnecting: Bool = true, _ body: (PostgresConnection) throws -> T)
    throws -> T
  {
    permits.wait()
    defer { permits.signal() }
    let clock = ContinuousClock()
    let deadline = clock.now + (reconnecting ? reconnectTimeout : .zero)
    var delay = Duration.milliseconds(50)
    var conflicts = 0
    var replacing = false
    while true {
      do {
        let connection = try take(replacing: replacing)
        replacing = false
        do {
          let value = try body(connection)
          giveBack(connection)
          return value
        } catch {
          // A broken connection is dropped (the next attempt opens another); a healthy one
          // goes back whatever the body threw.
          giveBack(connection, keeping: connection.isOpen)
          throw error
        }
      } catch let error as PostgresError where error.isRetryable {
        if error.kind == .connectionLost {
          replacing = true
          guard clock.now < deadline else { throw error }
          let (seconds, attoseconds) = delay.components
          Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) * 1e-18)
          delay = min(delay * 2, .seconds(2))
        } else {
          conflicts += 1
          guard conflicts < 10 else { throw error }
        }
      }
    }
  }

  /// An idle open connection, else a new one (counted as a reconnect when it replaces a
  /// broken one: `replacing`, or an idle one found closed); recorded as lent.
  private func take(replacing: Bool) throws -> PostgresConnection {
    var replacing = replacing
    while let idle = pool.withLock({ $0.idle.popLast() }) {
      if idle.isOpen {
        pool.withLock { $0.lent[ObjectIdentifier(idle)] = idle }
        return idle
      }
      replacing = true
    }
    let fresh = try PostgresConnection(uri: uri)
    pool.withLock {
      if replacing { $0.reconnects += 1 }
      $0.lent[ObjectIdentifier(fresh)] = fresh
    }
    return fresh
  }

  /// Takes `connection` back from its call: idle again when `keeping`, else dropped.
  private func giveBack(_ connection: PostgresConnection, keeping: Bool = true) {
    pool.withLock {
      $0.lent[ObjectIdentifier(connection)] = nil
      if keeping { $0.idle.append(connection) }
    }
  }

  /// Cancels the statements running now on every lent connection, from any thread: their
  /// transactions fail and are rolled back (a long import when `serve` stops).
  package func interrupt() {
    for connection in pool.withLock({ Array($0.lent.values) }) { connection.cancel() }
  }

  /// Closes the idle connections (a later call opens a new one).
  func closeIdleConnections() {
    pool.withLock { $0.idle.removeAll() }
  }
}
