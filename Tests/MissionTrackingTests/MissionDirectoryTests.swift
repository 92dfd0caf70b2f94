import Foundation
import MissionProximity
import Testing

@testable import MissionTracking

/// The directory's queries against a brute-force scan of what it was told, after a load
/// and a long run of changes (new, moved, re-stated and removed missions) that makes it
/// rewrite its JSON more than once.
@Suite struct MissionDirectoryTests {
  /// A seeded generator, so a failure repeats.
  struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  static func mission(_ id: String, using random: inout Generator) throws -> Mission {
    let titles = [
      "", "Fix the pump", "Deliver \"parcel\" to the back door\nring twice",
      "Ångström väg 7 — Umeå",
    ]
    return Mission(
      id: id, title: titles[Int.random(in: 0..<titles.count, using: &random)],
      coordinate: try Coordinate(
        latitude: 59.3 + Double.random(in: -0.05...0.05, using: &random),
        longitude: 18.0 + Double.random(in: -0.1...0.1, using: &random)),
      reward: Bool.random(using: &random) ? "12.50" : nil,
      address: Bool.random(using: &random) ? "Storgatan \(id), 111 22 Stockholm" : nil,
      state: MissionState.allCases.randomElement(using: &random) ?? .open)
  }

  /// The missions that pass `filter` by distance from `center`, ties by id.
  static func ranked(
    _ missions: [String: Mission], from center: Coordinate,
    where filter: ((MissionState) -> Bool)?
  ) -> [(id: String, distance: Double)] {
    var ranked: [(id: String, distance: Double)] = []
    for mission in missions.values where filter?(mission.state) ?? true {
      ranked.append((mission.id, center.distance(to: mission.coordinate)))
    }
    return ranked.sorted { $0.distance != $1.distance ? $0.distance < $1.distance : $0.id < $1.id }
  }

  /// Every result of `forEachMissionJSON` and `missions` against the expected missions.
  static func expectMatches(
    _ directory: MissionDirectory, _ expected: [String: Mission], using random: inout Generator
  ) throws {
    for _ in 0..<20 {
      let center = try Coordinate(
        latitude: 59.3 + Double.random(in: -0.05...0.05, using: &random),
        longitude: 18.0 + Double.random(in: -0.1...0.1, using: &random))
      let radius = Double.random(in: 0...3000, using: &random)
      let wanted = MissionState.allCases.randomElement(using: &random) ?? .open
      let filter: ((MissionState) -> Bool)? = Bool.random(using: &random) ? { $0 == wanted } : nil
      let truth = Self.ranked(expected, from: center, where: filter).filter {
        $0.distance <= radius
      }
      var seen: [(id: String, distance: Double)] = []
      try directory.forEachMissionJSON(within: radius, of: center, where: filter) { match, json in
        seen.append((match.id, match.distanceMeters))
        #expect(Array(json) == expected[match.id]?.openJSONBytes)
      }
      #expect(seen.map(\.id) == truth.map(\.id))
      #expect(seen.map(\.distance) == truth.map(\.distance))
      let found = try directory.missions(within: radius, of: center, where: filter)
      #expect(found.map(\.match.id) == truth.map(\.id))
      #expect(found.allSatisfy { expected[$0.match.id] == $0.mission })
      let k = Int.random(in: 0...10, using: &random)
      var nearest: [String] = []
      try directory.forEachMissionJSON(within: nil, of: center, limit: k, where: filter) {
        match, json in
        nearest.append(match.id)
        #expect(Array(json) == expected[match.id]?.openJSONBytes)
      }
      let truthNearest = Self.ranked(expected, from: center, where: filter).prefix(k).map(\.id)
      #expect(nearest == Array(truthNearest))
    }
  }

  @Test func queriesEqualABruteForceScanThroughChangesAndRewrites() throws {
    var random = Generator(state: 7)
    var expected: [String: Mission] = [:]
    for index in 0..<2000 {
      let mission = try Self.mission("m\(index)", using: &random)
      expected[mission.id] = mission
    }
    let directory = MissionDirectory()
    try directory.load(Array(expected.values))
    // No JSON is kept until something reads it (the HTTP service): not for the CLI.
    for index in 0..<50 {
      let mission = try Self.mission("m\(index * 7)", using: &random)
      directory.set(mission, id: mission.id)
      expected[mission.id] = mission
    }
    #expect(directory.jsonByteCount == 0)
    #expect(
      try directory.missions(within: 3000, of: Coordinate(latitude: 59.3, longitude: 18)).count > 0)
    #expect(directory.jsonByteCount == 0)
    try Self.expectMatches(directory, expected, using: &random)
    #expect(directory.jsonByteCount > 0)
    var live = expected.values.reduce(0) { $0 + $1.openJSONBytes.count }
    for step in 0..<30_000 {
      let id = "m\(Int.random(in: 0..<2600, using: &random))"
      let choice = Int.random(in: 0..<10, using: &random)
      var changed: Mission?
      if choice == 0 {
        changed = nil
      } else if choice <= 4, var mission = expected[id] {
        // The same place, another state or title.
        mission.state = MissionState.allCases.randomElement(using: &random) ?? .open
        mission.title = "changed at \(step)"
        changed = mission
      } else {
        changed = try Self.mission(id, using: &random)
      }
      live += (changed?.openJSONBytes.count ?? 0) - (expected[id]?.openJSONBytes.count ?? 0)
      directory.set(changed, id: id)
      expected[id] = changed
      // 30,000 changes write about 4 MB of JSON: the rewrites keep what is kept near the
      // live size.
      #expect(directory.jsonByteCount <= 2 * live + (1 << 20) + 4096)
      if step % 5000 == 4999 { try Self.expectMatches(directory, expected, using: &random) }
    }
    for (id, mission) in expected { #expect(directory.mission(id) == mission) }
    #expect(directory.mission("m-none") == nil)
    var counts: [MissionState: Int] = [:]
    for mission in expected.values { counts[mission.state, default: 0] += 1 }
    #expect(directory.countsByState == counts)
  }
}
