import MissionProximity
import Testing

@testable import MissionProximity

/// Random data and random queries, compared with a brute-force haversine scan.
@Suite struct SpatialGridPropertyTests {
  typealias Distribution = TestData.Distribution

  fileprivate func check(
    _ grid: SpatialGrid<Int>, _ model: BruteForceModel, _ distribution: Distribution,
    queries: Int, seed: UInt64
  ) throws {
    var rng = SplitMix64(seed: seed)
    for _ in 0..<queries {
      // A quarter of the queries start on a mission, and a quarter of the radii end exactly
      // on one, to hit the inclusive boundary and radius 0.
      let existing = model.missions.values.map(\.coordinate)
      var center = TestData.coordinate(distribution, &rng)
      if !existing.isEmpty && Int.random(in: 0..<4, using: &rng) == 0 {
        center = existing[Int.random(in: 0..<existing.count, using: &rng)]
      }
      var radius = TestData.radius(distribution, &rng)
      if !existing.isEmpty && Int.random(in: 0..<4, using: &rng) == 0 {
        radius = center.distance(to: existing[Int.random(in: 0..<existing.count, using: &rng)])
      }
      let tag = Int.random(in: 0..<4, using: &rng)
      let usePredicate = Bool.random(using: &rng)
      let predicate: ((Int) -> Bool)? = usePredicate ? { $0 != tag } : nil

      let within = try grid.missions(within: radius, of: center, where: predicate)
      let expectedWithin = model.within(radius, of: center, where: predicate)
      #expect(agree(within, expectedWithin), "within \(radius) m of \(center)")

      let k = Int.random(in: 0...25, using: &rng)
      let nearest = try grid.nearest(k, to: center, where: predicate)
      #expect(agree(nearest, model.nearest(k, to: center, where: predicate)), "\(k) near \(center)")

      let bounded = try grid.nearest(k, to: center, within: radius, where: predicate)
      #expect(
        agree(bounded, model.nearest(k, to: center, within: radius, where: predicate)),
        "\(k) within \(radius) m of \(center)")

      // The payload variants: the same matches, each with the payload stored for its id.
      let withPayloads = try grid.missionsWithPayloads(within: radius, of: center, where: predicate)
      #expect(withPayloads.map(\.match) == within)
      #expect(withPayloads.allSatisfy { grid.payload(of: $0.match.id) == $0.payload })
      let nearestWithPayloads = try grid.nearestWithPayloads(
        k, to: center, within: radius, where: predicate)
      #expect(nearestWithPayloads.map(\.match) == bounded)
      #expect(nearestWithPayloads.allSatisfy { grid.payload(of: $0.match.id) == $0.payload })

      let box = TestData.box(distribution, &rng)
      let limit: Int? = Bool.random(using: &rng) ? Int.random(in: 0...10, using: &rng) : nil
      let inBox = try grid.missions(
        in: box, sortedByDistanceFrom: center, limit: limit, where: predicate)
      #expect(
        agree(inBox, model.inBox(box, from: center, limit: limit, where: predicate)),
        "box \(box) limit \(String(describing: limit))")
    }
  }

  @Test(arguments: Distribution.allCases, [0.5, 2, 40])
  func queriesEqualABruteForceScan(_ distribution: Distribution, missionsPerCell: Double)
    throws
  {
    let missions = TestData.missions(distribution, count: 1500, seed: 42)
    let grid = try SpatialGrid(
      missions.map { ($0.id, $0.coordinate, $0.payload) }, targetMissionsPerCell: missionsPerCell)
    var model = BruteForceModel()
    for mission in missions { model.missions[mission.id] = (mission.coordinate, mission.payload) }
    #expect(grid.count == 1500)
    try check(grid, model, distribution, queries: 60, seed: 7)
  }

  @Test(arguments: Distribution.allCases)
  func queriesStayExactThroughRandomUpdates(_ distribution: Distribution) throws {
    var rng = SplitMix64(seed: 99)
    var grid = try SpatialGrid<Int>()
    var model = BruteForceModel()
    var nextID = 0
    for step in 1...4000 {
      let ids = Array(model.missions.keys)
      switch Int.random(in: 0..<10, using: &rng) {
      case 0..<5:
        let id = "u\(nextID)"
        nextID += 1
        let coordinate = TestData.coordinate(distribution, &rng)
        let tag = Int.random(in: 0..<4, using: &rng)
        let previous = grid.insert(id, at: coordinate, payload: tag)
        #expect(previous == nil)
        model.missions[id] = (coordinate, tag)
      case 5, 6:
        guard let id = ids.randomElement(using: &rng) else { continue }
        let coordinate = TestData.coordinate(distribution, &rng)
        let moved = grid.move(id, to: coordinate)
        #expect(moved)
        model.missions[id]?.coordinate = coordinate
      case 7:
        guard let id = ids.randomElement(using: &rng) else { continue }
        let tag = Int.random(in: 0..<4, using: &rng)
        let previous = grid.setPayload(tag, for: id)
        #expect(previous == model.missions[id]?.tag)
        model.missions[id]?.tag = tag
      default:
        guard let id = ids.randomElement(using: &rng) else { continue }
        let removed = grid.remove(id)
        #expect(removed == model.missions[id]?.tag)
        model.missions[id] = nil
      }
      if step % 500 == 0 {
        #expect(grid.count == model.missions.count)
        try check(grid, model, distribution, queries: 8, seed: UInt64(step))
      }
    }
  }

  @Test func inlinedHaversineIsBitIdenticalToCoordinateDistance() throws {
    var rng = SplitMix64(seed: 5)
    for index in 0..<20_000 {
      let distribution = Distribution.allCases[index % 4]
      let a = TestData.coordinate(distribution, &rng)
      let b = TestData.coordinate(distribution, &rng)
      let inlined = QueryPoint(a).distance(toLatitude: b.latitude, longitude: b.longitude)
      #expect(inlined.bitPattern == a.distance(to: b).bitPattern, "\(a) → \(b)")
    }
  }
}

extension SpatialGridPropertyTests {
  /// Missions inserted far outside the area the grid was fitted to (before it re-fits) live
  /// in the edge cells; every query must still find them, including across ±180.
  @Test(arguments: [(0.0, 100.0), (-170.0, -100.0), (100.0, 170.0)])
  func missionsOutsideTheFittedAreaAreStillFound(_ west: Double, _ east: Double) throws {
    var rng = SplitMix64(seed: 17)
    var grid = try SpatialGrid<Int>()
    var model = BruteForceModel()
    var fitted: [(id: String, coordinate: Coordinate, payload: Int)] = []
    for index in 0..<2000 {
      let coordinate = try Coordinate(
        latitude: TestData.uniform(-10...10, &rng), longitude: TestData.uniform(west...east, &rng))
      fitted.append(("f\(index)", coordinate, 0))
      model.missions["f\(index)"] = (coordinate, 0)
    }
    grid = try SpatialGrid(fitted)
    for index in 0..<300 {
      let coordinate = TestData.coordinate(.uniformWorld, &rng)
      grid.insert("o\(index)", at: coordinate, payload: 1)
      model.missions["o\(index)"] = (coordinate, 1)
    }
    try check(grid, model, .uniformWorld, queries: 120, seed: 18)
    try check(grid, model, .antimeridianBand, queries: 120, seed: 19)
  }
}
