import Foundation
import MissionCatalog
import MissionStore
import PostgresStore
import Testing

/// The tracking lease of `replay` and `track` (`TrackingLeaseStore`) on SQLite and on
/// PostgreSQL: one holder per worker and database, the refusal in the same words, free
/// again as soon as it is released. (Across processes, and a killed holder:
/// PostgresCommandTests+Tracking.swift.)
@Suite struct TrackingLeaseContractTests {
  /// The stores with a lease, on this machine.
  static let kinds = StoreKind.available.filter { $0 != .memory }

  /// A fresh store of `kind`, the database as its refusal names it, and what keeps its
  /// directory alive.
  static func store(_ kind: StoreKind) throws -> (
    store: any TrackingLeaseStore, database: String, owner: (any Sendable)?
  ) {
    if kind == .postgres {
      let uri = try PostgresFixture.database()
      return (try PostgresDatabase(uri: uri), uri, nil)
    }
    let directory = try TemporaryDirectory()
    let path = directory.url.appendingPathComponent("lease.sqlite").path
    return (try MissionDatabase(path: path), path, directory)
  }

  @Test(arguments: kinds)
  func oneHolderPerWorkerIsNamedInTheRefusal(_ kind: StoreKind) async throws {
    let (store, database, owner) = try Self.store(kind)
    defer { withExtendedLifetime(owner) {} }
    let first = try store.claimTracking(holder: "missiontrack replay", worker: "caf\u{E9}")
    // The same worker typed in NFD, from another holder.
    // PostgreSQL names the database as the server does (never the URI, with its password).
    let named = kind == .postgres ? URL(string: database)?.lastPathComponent ?? "" : database
    let refusal = MissionRefusal.trackingLeaseHeld(
      database: named, worker: "caf\u{E9}", holder: "pid \(getpid()) (missiontrack replay)")
    let refused = #expect(throws: (any Error).self) {
      _ = try store.claimTracking(holder: "missiontrack track", worker: "cafe\u{301}")
    }
    #expect(refused.map { "\($0)" } == refusal.description)
    // Another worker's lease is not refused.
    let other = try store.claimTracking(holder: "missiontrack serve", worker: "local")
    // Released, the lease is free at once.
    first.release()
    let again = try store.claimTracking(holder: "missiontrack track", worker: "cafe\u{301}")
    again.release()
    other.release()
  }

  @Test(arguments: kinds)
  func anInvalidWorkerIdIsRefusedInTheSameWords(_ kind: StoreKind) async throws {
    let (store, _, owner) = try Self.store(kind)
    defer { withExtendedLifetime(owner) {} }
    let refused = #expect(throws: (any Error).self) {
      _ = try store.claimTracking(holder: "missiontrack track", worker: " ")
    }
    #expect(
      refused.map { "\($0)" }
        == WorkerRefusal.invalidWorker(id: " ", reason: "must not be blank").description)
  }
}
