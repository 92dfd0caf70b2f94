import Foundation
import MissionTracking
import Testing

@testable import MissionStore

/// Two engines on one database file, as two `serve` nodes: a worker's positions that reach
/// the node which has not yet heard of the start made through the other are tracked, not
/// dropped as untracked (a phone told "ok" never sends them again). Seen under load in
/// `oneWorkersBatchesThroughTwoNodesAreStoredOnceAndArriveOnce`: 50 of 3,200 positions
/// missing, acknowledged.
@Suite struct StartedElsewhereIngestTests {
  @Test func positionsReachingTheNodeThatMissedTheStartAreTracked() async throws {
    let directory = try TemporaryDirectory()
    let mission = Fixtures.mission("m")
    let first = try Fixtures.database(in: directory, missions: [mission])
    let second = try MissionDatabase(
      path: directory.path(), configuration: StoreConfiguration(synchronous: .normal))
    try first.putWorker(Worker(id: "walker"))
    // Neither engine polls: the start reaches the other only through the store.
    let engines = [first, second].map { database in
      MissionEngine(
        store: database, sources: { _ in nil },
        configuration: .init(changePollInterval: .seconds(3600)))
    }
    for engine in engines { try await engine.open() }
    let start = Date()
    try await engines[0].perform(.accept, on: "m", worker: "walker", at: start)
    try await engines[0].perform(.start, on: "m", worker: "walker", at: start)
    // 22 m apart, walking north to the mission: each one past the pipeline's 10 m filter.
    let fixes = try (1...5).map { second in
      Fix(
        time: start.addingTimeInterval(Double(second)),
        coordinate: try Coordinate(
          latitude: mission.coordinate.latitude - 0.0002 * Double(5 - second),
          longitude: mission.coordinate.longitude),
        source: "test")
    }
    // One request alone, then one among others in one job.
    let alone = try await engines[1].ingest(Array(fixes[0..<2]), worker: "walker")
    #expect(alone.accepted == 2 && alone.untracked == 0, "\(alone)")
    let grouped = await engines[1].ingest([
      (fixes: [], worker: "nobody"), (fixes: Array(fixes[2...]), worker: "walker"),
    ])
    let counts = try grouped[1].get().counts
    #expect(counts.accepted == 3 && counts.untracked == 0, "\(counts)")
    for engine in engines { await engine.shutdown() }
    try first.flush()
    try second.flush()
    let stored = try first.track(ofMission: "m").count
    #expect(stored == 5, "\(stored) fixes stored")
  }
}
