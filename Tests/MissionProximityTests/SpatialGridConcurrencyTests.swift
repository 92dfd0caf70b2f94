import MissionProximity
import Testing

/// The value-semantics model: readers query a snapshot from many tasks while a writer
/// changes its own copy.
@Suite struct SpatialGridConcurrencyTests {
  @Test func readersOnASnapshotAreUnaffectedByAConcurrentWriter() async throws {
    let missions = TestData.missions(.clusteredCity, count: 3000, seed: 21)
    var writer = try SpatialGrid(missions)
    let snapshot = writer
    var model = BruteForceModel()
    for mission in missions { model.missions[mission.id] = (mission.coordinate, mission.payload) }
    var rng = SplitMix64(seed: 22)
    let centers = (0..<40).map { _ in TestData.coordinate(.clusteredCity, &rng) }
    let expected = centers.map { model.nearest(8, to: $0) }

    let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
      for reader in 0..<4 {
        group.addTask {
          var wrong = 0
          for (index, center) in centers.enumerated() where index % 4 == reader {
            if try !agree(snapshot.nearest(8, to: center), expected[index]) { wrong += 1 }
          }
          return wrong
        }
      }
      // Meanwhile the writer moves and removes missions in its own copy.
      for (index, mission) in missions.enumerated() where index % 3 == 0 {
        if index % 2 == 0 {
          writer.move(mission.id, to: try Coordinate(latitude: 0, longitude: 0))
        } else {
          writer.remove(mission.id)
        }
      }
      return try await group.reduce(0, +)
    }
    #expect(mismatches == 0)
    #expect(snapshot.count == 3000)
    #expect(writer.count == 2500)
  }
}
