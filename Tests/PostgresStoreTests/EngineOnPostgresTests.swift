import Foundation
import MissionStore
import MissionTracking
import PostgresStore
import PostgresTestSupport
import Testing

/// A finite source that yields a replayed trace, one report at a time.
struct ReplaySource: FixSource {
  let fixes: [Fix]

  func reports() -> AsyncThrowingStream<SourceReport, any Error> {
    AsyncThrowingStream { continuation in
      for fix in fixes { continuation.yield(.fix(fix)) }
      continuation.finish()
    }
  }
}

/// The engine on PostgreSQL: the same decisions, stored the same way as on SQLite, and a
/// track PostGIS measures as the engine did.
@Suite(
  .enabled(
    if: PostgresFixture.skipReason == nil,
    "PostgreSQL 15 + PostGIS 3 are not installed (Tools/setup): PostgreSQL tests skipped"))
struct EngineOnPostgresTests {
  static let place = Coordinate(uncheckedLatitude: 59.6168, longitude: 17.7233)
  static let target = Mission(
    id: "m1", title: "Shop front", coordinate: place, state: .accepted, workerID: "local")
  static let t0 = Date(timeIntervalSince1970: 1_780_000_000)

  /// A walk north at 12 m/s from 300 m south of the mission to 180 m past it.
  static let walk: [Fix] = (0..<41).map { step in
    let south = 300 - 12 * Double(step)
    let position =
      (try? place.destination(bearingDegrees: south >= 0 ? 180 : 0, distanceMeters: abs(south)))
      ?? place
    return Fix(
      time: t0.addingTimeInterval(Double(step)), coordinate: position, mode: .threeD,
      source: "replay", horizontalAccuracyMeters: 5, speedMetersPerSecond: 12)
  }

  /// Replays `walk` through an engine over `store` until the trace ends.
  static func replay(into store: any TrackingStore) async throws -> [TrackingEvent] {
    let engine = MissionEngine(
      store: store, source: ReplaySource(fixes: walk), clock: ManualClock(t0),
      configuration: .init(changePollInterval: .milliseconds(20)))
    try await engine.open()
    try await engine.perform(.start, on: "m1", at: t0)
    _ = await engine.waitUntilTrackingEnds()
    await engine.shutdown()
    var events: [TrackingEvent] = []
    for await event in engine.events { events.append(event) }
    return events
  }

  /// The events' JSON lines. The SQLite store of this base keeps no worker on a mission
  /// (its schema 7 adds it, on the store branch of issue 25), so the mission's worker,
  /// `local`, is left out of its `state` events there: it is left out here on both sides.
  static func lines(_ events: [TrackingEvent]) -> [String] {
    events.map { $0.jsonLine.replacingOccurrences(of: #""worker_id":"local","#, with: "") }
  }

  /// Two engines on one database, as two `serve` nodes behind a load balancer: each step of
  /// a mission's lifecycle reaches the engine that has not heard of the one before (they
  /// never poll here), which decides it against the database instead of refusing it from
  /// its stale view.
  @Test func eachStepIsDecidedAgainstTheDatabaseNotAStaleView() async throws {
    let uri = try PostgresFixture.cluster().createDatabase()
    let stores = try [PostgresDatabase(uri: uri), PostgresDatabase(uri: uri)]
    let engines = stores.map { store in
      MissionEngine(
        store: store, source: ReplaySource(fixes: []), clock: ManualClock(Self.t0),
        configuration: .init(changePollInterval: .seconds(3600)))
    }
    for engine in engines { try await engine.open() }
    // Imported after both opened, by another process: neither engine knows it.
    try stores[0].insert([Mission(id: "m2", title: "Later", coordinate: Self.place)])
    #expect(try await engines[1].perform(.accept, on: "m2", at: Self.t0) == .accepted)
    #expect(try await engines[0].perform(.start, on: "m2", at: Self.t0) == .active)
    #expect(try await engines[1].perform(.cancel, on: "m2", at: Self.t0) == .cancelled)
    #expect(try stores[0].mission("m2")?.state == .cancelled)
    // A refusal the database confirms stays one.
    await #expect(throws: TrackingError.self) {
      try await engines[0].perform(.start, on: "m2", at: Self.t0)
    }
    for engine in engines { await engine.shutdown() }
  }

  @Test func aMissionArrivesWithTheSameEventsAsOnSQLite() async throws {
    let directory = try TemporaryDirectory()
    let sqlite = try MissionDatabase(path: directory.url.appendingPathComponent("e.sqlite").path)
    try sqlite.insert([Self.target])
    let cluster = try PostgresFixture.cluster()
    let uri = try cluster.createDatabase()
    let postgres = try PostgresDatabase(uri: uri)
    try postgres.insert([Self.target])

    let onSQLite = try await Self.replay(into: sqlite)
    let onPostgres = try await Self.replay(into: postgres)
    #expect(Self.lines(onPostgres) == Self.lines(onSQLite))
    #expect(onPostgres.contains { $0.type == "enter" })
    #expect(onPostgres.contains { $0.kind == .state(from: .active, to: .arrived) })
    #expect(try postgres.mission("m1")?.state == .arrived)

    // Stored: the same outbox, line for line, in the same order.
    let storedOnPostgres = Self.lines(try postgres.events(ofMission: "m1").map(\.event))
    let storedOnSQLite = Self.lines(try sqlite.events(ofMission: "m1").map(\.event))
    #expect(storedOnPostgres == storedOnSQLite)
    #expect(storedOnPostgres.count > 20)

    // PostGIS measures the delivered track as the engine did (haversine against the
    // ellipsoid: within 1 %).
    let travelled = try #require(
      onPostgres.compactMap { event -> Double? in
        if case .fix(_, _, let meters) = event.kind { return meters }
        return nil
      }.last)
    let database = PostgresTestCluster.databaseName(in: uri)
    let measured = try #require(
      Double(
        cluster.sql(
          "SELECT ST_Length(geom::geography) FROM mission_tracks WHERE mission_id = 'm1'",
          database: database
        ).trimmingCharacters(in: .whitespacesAndNewlines)))
    #expect(travelled > 400)
    #expect(abs(measured - travelled) / travelled < 0.01)
  }
}
