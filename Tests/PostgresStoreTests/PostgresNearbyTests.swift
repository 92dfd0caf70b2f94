import Foundation
import MissionStore
import MissionTracking
import PostgresStore
import Testing

/// `nearbyMissions` on PostgreSQL (PostGIS candidates, ranked by the proximity grid)
/// against the SQLite store's over the same missions: equal value for value, including the
/// order of ties, the bits of every distance, the inclusive boundary, the poles and the
/// antimeridian, the state filter before the limit and the missions counted as expired.
@Suite(
  .enabled(
    if: PostgresFixture.skipReason == nil,
    "PostgreSQL 15 + PostGIS 3 are not installed (Tools/setup): PostgreSQL tests skipped"))
struct PostgresNearbyTests {
  static let states: [MissionState] = [.open, .open, .open, .accepted, .cancelled, .expired]

  /// Anywhere, on or near a pole, on or near the antimeridian, or in a dense town.
  static func coordinate(_ rng: inout SplitMix64) -> Coordinate {
    func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
    let (lat, lon): (Double, Double) =
      switch Int.random(in: 0..<8, using: &rng) {
      case 0: ([90.0, -90.0, 89.99][Int.random(in: 0..<3, using: &rng)], uniform(-180...180))
      case 1:
        (
          uniform(-60...60),
          [180.0, -180.0, 179.9999, -179.9999][Int.random(in: 0..<4, using: &rng)]
        )
      case 2, 3, 4: (59.3293 + uniform(-0.02...0.02), 18.0686 + uniform(-0.04...0.04))
      default: (asin(uniform(-1...1)) * 180 / .pi, uniform(-180...180))
      }
    return Coordinate(uncheckedLatitude: min(90, max(-90, lat)), longitude: lon)
  }

  @Test(arguments: [(UInt64(5), 60), (28, 1500)])
  func randomQueriesEqualTheSQLiteStore(seed: UInt64, count: Int) async throws {
    var rng = SplitMix64(seed: seed)
    var missions: [Mission] = []
    for index in 0..<count {
      // Every eighth shares another's point: ties at every distance.
      let coordinate =
        index % 8 == 7
        ? missions[Int.random(in: 0..<index, using: &rng)].coordinate
        : Self.coordinate(&rng)
      missions.append(
        Mission(
          id: "m\(index)", coordinate: coordinate,
          state: Self.states[Int.random(in: 0..<Self.states.count, using: &rng)]))
    }
    let due = Set(missions.filter { _ in Int.random(in: 0..<10, using: &rng) == 0 }.map(\.id))
    let sqlite = try MissionDatabase(path: ":memory:")
    try sqlite.insert(missions)
    let postgres = try PostgresDatabase(uri: try PostgresFixture.database())
    try postgres.insert(missions)
    for _ in 0..<120 {
      var center = Self.coordinate(&rng)
      if Bool.random(using: &rng) {
        center = missions.randomElement(using: &rng)?.coordinate ?? center
      }
      var radius: Double? = [
        0, 50, 800, 20_000, 2_000_000, Earth.halfCircumferenceMeters, 1e300,
      ].randomElement(using: &rng)
      if Bool.random(using: &rng), let other = missions.randomElement(using: &rng) {
        // Exactly on a mission: the boundary is inclusive.
        radius = center.distance(to: other.coordinate)
      }
      if Int.random(in: 0..<5, using: &rng) == 0 { radius = nil }
      let limit = [nil, 1, 3, 10, 100, 5000].randomElement(using: &rng) ?? nil
      let states: [MissionState?] = [nil, .open, .expired, .accepted]
      let state = states.randomElement(using: &rng) ?? nil
      let expected = try sqlite.nearbyMissions(
        within: radius, of: center, limit: limit, state: state, due: due)
      let found = try postgres.nearbyMissions(
        within: radius, of: center, limit: limit, state: state, due: due)
      let query =
        "\(String(describing: limit)) within \(String(describing: radius)) m of \(center), "
        + "state \(String(describing: state))"
      #expect(found == expected, "\(query)")
    }
  }
}
