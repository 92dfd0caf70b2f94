import Foundation
import MissionTracking

/// The mission store on PostgreSQL + PostGIS (DESIGN §10): the engine's `TrackingStore`,
/// shared by any number of processes on any machines.
///
/// One connection, owned by this actor. A connection that breaks is replaced with back-off
/// (50 ms doubling to 2 s) for up to `reconnectTimeout`; a transaction that failed before its
/// `COMMIT` was sent is then run again (the server rolled it back), as is one that lost a
/// serialization conflict. A transaction whose `COMMIT` was cut off is never run again: its
/// error (`PostgresError.Kind.commitOutcomeUnknown`) reaches the caller.
///
/// Every write is committed when the call returns, so `flush()` has nothing to do.
package actor PostgresDatabase {
  /// The libpq connection URI (`postgresql://USER@HOST:PORT/DB`).
  package nonisolated let uri: String
  /// How long an operation waits for the server to come back before it fails.
  package nonisolated let reconnectTimeout: Duration
  var connection: PostgresConnection?
  /// How many times a broken connection was replaced (for `/healthz` and tests).
  package private(set) var reconnects = 0

  /// Connects to `uri` and brings the schema up to date.
  /// - Throws: `PostgresError` when the server cannot be reached now (no retry: a wrong URI
  ///   fails at once) or the schema is newer than this build's.
  package init(uri: String, reconnectTimeout: Duration = .seconds(30)) throws {
    self.uri = uri
    self.reconnectTimeout = reconnectTimeout
    let connection = try PostgresConnection(uri: uri)
    try PostgresMigration.migrate(connection)
    self.connection = connection
  }

  /// Runs `body` on the connection, replacing a broken one and running `body` again when
  /// that is safe (see the type's documentation).
  func withConnection<T>(_ body: (PostgresConnection) throws -> T) async throws -> T {
    let clock = ContinuousClock()
    let deadline = clock.now + reconnectTimeout
    var delay = Duration.milliseconds(50)
    var conflicts = 0
    while true {
      do {
        let connection = try connected()
        return try body(connection)
      } catch let error as PostgresError where error.isRetryable {
        if error.kind == .connectionLost {
          connection = nil
          guard clock.now < deadline else { throw error }
          try await Task.sleep(for: delay)
          delay = min(delay * 2, .seconds(2))
        } else {
          conflicts += 1
          guard conflicts < 10 else { throw error }
        }
      }
    }
  }

  private func connected() throws -> PostgresConnection {
    if let connection, connection.isOpen { return connection }
    connection = nil
    let fresh = try PostgresConnection(uri: uri)
    reconnects += 1
    connection = fresh
    return fresh
  }
}
