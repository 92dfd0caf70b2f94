import Foundation
import MissionProximity
import Testing

@testable import MissionTrackCLI

/// `nearby`, in process, checked against distances computed here from the listed missions.
@Suite struct NearbyCommandTests {
  static let lat = 59.6175
  static let lon = 17.7230

  func nearby(_ box: CLISandbox, _ extra: [String]) async -> [[String: Any]] {
    let result = await box.run(
      ["nearby", "--lat", "\(Self.lat)", "--lon", "\(Self.lon)", "--json"] + extra)
    #expect(result.status == 0)
    return CLISandbox.jsonLines(result.out)
  }

  /// Every stored mission with its distance from the query point, nearest first, ties by id:
  /// the brute-force model.
  func model(_ box: CLISandbox) async throws -> [(id: String, state: String, meters: Double)] {
    let list = CLISandbox.jsonLines(await box.run(["missions", "list", "--json"]).out)
    let center = try Coordinate(latitude: Self.lat, longitude: Self.lon)
    return try list.map { object in
      let point = try Coordinate(
        latitude: object["lat"] as? Double ?? .nan, longitude: object["lon"] as? Double ?? .nan)
      return (
        object["id"] as? String ?? "", object["state"] as? String ?? "",
        center.distance(to: point)
      )
    }.sorted { $0.meters != $1.meters ? $0.meters < $1.meters : $0.id < $1.id }
  }

  @Test func jsonLinesAreNearestFirstWithTheDocumentedKeys() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let objects = await nearby(box, ["--radius", "5000"])
    let expected = try await model(box)
    #expect(objects.map { $0["id"] as? String } == expected.map(\.id))
    for (object, truth) in zip(objects, expected) {
      #expect(Set(object.keys) == ["id", "lat", "lon", "distance_m", "state", "title"])
      let meters = try #require(object["distance_m"] as? Double)
      #expect(abs(meters - truth.meters) < 1e-6)
    }
  }

  @Test func theRadiusIsABoundAndKIsALimit() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let expected = try await model(box)
    let radius = (expected[2].meters + expected[3].meters) / 2
    let within = await nearby(box, ["--radius", "\(radius)"])
    #expect(within.map { $0["id"] as? String } == expected.prefix(3).map(\.id))
    let two = await nearby(box, ["--k", "2"])
    #expect(two.map { $0["id"] as? String } == expected.prefix(2).map(\.id))
    let both = await nearby(box, ["--k", "5", "--radius", "\(radius)"])
    #expect(both.count == 3)
    let none = await nearby(box, ["--radius", "0"])
    #expect(none.isEmpty)
  }

  @Test func onlyOpenMissionsByDefaultAndTheFilterComesBeforeTheLimit() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let expected = try await model(box)
    let nearest = expected[0].id
    _ = await box.run(["missions", "accept", nearest])
    let open = await nearby(box, ["--k", "1"])
    #expect(open.map { $0["id"] as? String } == [expected[1].id])
    let accepted = await nearby(box, ["--k", "1", "--state", "accepted"])
    #expect(accepted.map { $0["id"] as? String } == [nearest])
    #expect(accepted.first?["state"] as? String == "accepted")
    let all = await nearby(box, ["--k", "1", "--all"])
    #expect(all.map { $0["id"] as? String } == [nearest])
  }

  @Test func theTableShowsDistancesWithUnits() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let result = await box.run(["nearby", "--lat", "59.6175", "--lon", "17.7230"])
    #expect(result.status == 0)
    let lines = result.out.split(separator: "\n")
    #expect(lines.first?.contains("DISTANCE") == true)
    #expect(lines.count == 7)
    #expect(lines.dropFirst().allSatisfy { $0.hasSuffix(" m") })
    #expect(result.err.contains("within 1000 m"))
  }

  @Test(arguments: [
    ["nearby"], ["nearby", "--lat", "59"], ["nearby", "--lat", "91", "--lon", "0"],
    ["nearby", "--lat", "59", "--lon", "east"],
    ["nearby", "--lat", "59", "--lon", "17", "--k", "-1"],
    ["nearby", "--lat", "59", "--lon", "17", "--radius", "-5"],
    ["nearby", "--lat", "59", "--lon", "17", "--all", "--state", "open"],
    ["nearby", "--lat", "59", "--lon", "17", "extra"],
  ])
  func badArgumentsExit64(arguments: [String]) async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let result = await box.run(arguments)
    #expect(result.status == 64)
    #expect(result.err.split(separator: "\n").count == 1)
  }
}
