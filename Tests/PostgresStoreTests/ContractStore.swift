import Foundation
import MissionStore
import MissionTracking
import PostgresStore
import PostgresTestSupport
import Testing

/// The stores the one contract suite runs against.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
  case memory
  case sqlite
  case postgres

  var testDescription: String { rawValue }

  /// The stores this machine can run: PostgreSQL only when it is installed (else its
  /// cases are left out, with the reason printed once).
  static let available: [StoreKind] = allCases.filter(\.isAvailable)

  /// The available stores that support workers and watches. The SQLite store gets them
  /// with its schema 7 (issue 25's store branch); until that lands it refuses watches and
  /// holds one tracked mission per database, so it runs the rest of the suite only.
  static let withWorkers: [StoreKind] = [.memory, .postgres].filter(\.isAvailable)

  private var isAvailable: Bool {
    guard self == .postgres, let reason = PostgresFixture.skipReason else { return true }
    print("PostgreSQL cases of the store contract skipped: \(reason)")
    return false
  }
}

/// A store under test, with a second writer on the same data (another process or node).
struct ContractStore: Sendable {
  let store: any TrackingStore
  /// Adds new missions through another connection.
  let writeElsewhere: @Sendable ([Mission]) async throws -> Void
  /// Registers a worker where the store needs one (a no-op for the in-memory store).
  let addWorker: @Sendable (String) async throws -> Void
  /// Keeps a temporary directory alive while the store is used.
  let owner: (any Sendable)?

  /// A fresh store of `kind` holding `missions`.
  static func make(_ kind: StoreKind, missions: [Mission]) async throws -> ContractStore {
    switch kind {
    case .memory:
      let store = InMemoryTrackingStore(missions: missions)
      return ContractStore(
        store: store, writeElsewhere: { await store.update($0) }, addWorker: { _ in },
        owner: nil)
    case .sqlite:
      let directory = try TemporaryDirectory()
      let path = directory.url.appendingPathComponent("contract.sqlite").path
      let store = try MissionDatabase(path: path)
      try store.insert(missions)
      return ContractStore(
        store: store,
        writeElsewhere: { changed in
          let other = try MissionDatabase(path: path)
          try other.insert(changed)
          try other.close()
        }, addWorker: { _ in }, owner: directory)
    case .postgres:
      let uri = try PostgresFixture.database()
      let store = try PostgresDatabase(uri: uri)
      try store.insert(missions)
      return ContractStore(
        store: store,
        writeElsewhere: { changed in
          let other = try PostgresDatabase(uri: uri)
          try other.insert(changed)
        },
        addWorker: { try store.putWorker(Worker(id: $0)) }, owner: nil)
    }
  }
}

/// A directory under the system temporary directory, removed when released.
final class TemporaryDirectory: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("postgres-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}

/// The shared private cluster of this test process.
enum PostgresFixture {
  /// Why PostgreSQL tests are skipped, or nil.
  static let skipReason = PostgresTestCluster.unavailableReason

  /// The shared cluster (started on first use).
  static func cluster() throws -> PostgresTestCluster { try PostgresTestCluster.shared.get() }

  /// A fresh database on the shared cluster.
  static func database() throws -> String { try cluster().createDatabase() }
}

/// Test data.
enum Fixtures {
  static let start = Date(timeIntervalSince1970: 1_780_000_000.25)

  static func mission(
    _ id: String, state: MissionState = .open, lat: Double = 59.3293, worker: String? = nil
  ) -> Mission {
    Mission(
      id: id, title: "Photograph the shop front \(id)",
      coordinate: Coordinate(uncheckedLatitude: lat, longitude: 18.0686),
      geofenceRadiusMeters: 75, reward: "350", currency: "SEK", address: "Storgatan 12",
      deadline: Date(timeIntervalSince1970: 1_790_000_000), state: state, workerID: worker)
  }

  /// The fix `index` of a synthetic track: one per second, moving north about 11 m a step.
  static func fix(_ index: Int) -> Fix {
    Fix(
      time: start.addingTimeInterval(Double(index)),
      coordinate: Coordinate(uncheckedLatitude: 59.0 + Double(index) * 1e-4, longitude: 18.0),
      mode: .threeD, source: "test", altitudeMeters: 12.5, horizontalAccuracyMeters: 4,
      speedMetersPerSecond: 1.5, courseDegrees: 0, satellitesUsed: 9)
  }

  static func fixEvent(_ index: Int, mission: String) -> TrackingEvent {
    TrackingEvent(
      time: fix(index).time, missionID: mission, workerID: Worker.localID,
      kind: .fix(fix(index), distanceToMissionMeters: 100, travelledMeters: Double(index) * 11))
  }

  static func transition(
    _ id: String, _ action: MissionAction, _ from: MissionState, _ to: MissionState,
    worker: String? = Worker.localID, at time: Date? = nil
  ) -> MissionTransition {
    MissionTransition(
      missionID: id, action: action, from: from, to: to, time: time ?? start, workerID: worker)
  }
}

/// Polls `condition` every 10 ms until it holds or `limit` passes; whether it held.
func eventually(within limit: Duration, _ condition: () async throws -> Bool) async rethrows
  -> Bool
{
  let clock = ContinuousClock()
  let deadline = clock.now + limit
  while clock.now < deadline {
    if try await condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return try await condition()
}

/// Runs `body` on a thread of its own and waits for it: a store call that waits for a
/// server that is down blocks its thread for seconds, which must not be one of the few
/// threads of the cooperative pool that every other test (and the restart) needs.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
  try await withCheckedThrowingContinuation { continuation in
    Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
  }
}
