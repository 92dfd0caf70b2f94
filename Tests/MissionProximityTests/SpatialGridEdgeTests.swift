import Foundation
import MissionProximity
import Testing

/// Hand-computed answers for the edges DESIGN.md §2 names.
@Suite struct SpatialGridEdgeTests {
  /// One degree of great circle on the model sphere: 6,371,008.8 m · π / 180.
  static let metersPerDegree = 111_195.080_233_532_92

  private func point(_ lat: Double, _ lon: Double) -> Coordinate {
    try! Coordinate(latitude: lat, longitude: lon)
  }

  private func grid(_ missions: [(String, Double, Double)], tag: String = "open")
    -> SpatialGrid<String>
  {
    try! SpatialGrid(missions.map { ($0.0, point($0.1, $0.2), tag) })
  }

  private func ids(_ matches: [ProximityMatch]) -> [String] { matches.map(\.id) }

  /// The named missions of `grid` ordered by a brute-force scan from `origin`.
  private func expectedByScan(
    _ grid: SpatialGrid<String>, _ names: [String], from origin: Coordinate
  )
    -> [ProximityMatch]
  {
    names.map {
      ProximityMatch(id: $0, distanceMeters: origin.distance(to: grid.coordinate(of: $0)!))
    }
    .sorted { ($0.distanceMeters, $0.id) < ($1.distanceMeters, $1.id) }
    .filter { $0.distanceMeters <= 1_000_000 }
  }

  @Test func theCornerOfTheRadiusBoxIsNeverReturned() throws {
    // Radius 1000 m at (0, 0): the box half-width is 1000 m / R in degrees both ways.
    let half = 1000 / Self.metersPerDegree
    let g = grid([
      ("corner", half * 0.95, half * 0.95),  // ≈ 1343 m: inside the box, outside the circle
      ("north", half * 0.999, 0),  // 999 m
      ("east", 0, half * 0.5),  // 500 m
    ])
    let found = try g.missions(within: 1000, of: point(0, 0))
    #expect(ids(found) == ["east", "north"])
    #expect(abs(found[0].distanceMeters - 500) < 1e-6)
    #expect(abs(found[1].distanceMeters - 999) < 1e-6)
    let cornerDistance = point(0, 0).distance(to: point(half * 0.95, half * 0.95))
    #expect(abs(cornerDistance - 950 * 2.0.squareRoot()) < 0.01)
  }

  @Test func aQueryAtTheNorthPoleFindsEveryLongitude() throws {
    let g = grid([
      ("a", 89, -170), ("b", 89, 10), ("c", 80, 45), ("d", -89, 0), ("e", 90, 77),
    ])
    let found = try g.missions(within: 1_000_000, of: point(90, 0))
    // a and b are both 1° away; rounding of cos(90°) ≠ 0 orders them, as in the brute force.
    #expect(ids(found) == ["e", "b", "a"])
    #expect(found == expectedByScan(g, ["a", "b", "e"], from: point(90, 0)))
    #expect(found[0].distanceMeters < 1e-6)
    #expect(abs(found[1].distanceMeters - Self.metersPerDegree) < 1e-6)
    #expect(abs(found[2].distanceMeters - Self.metersPerDegree) < 1e-6)
    #expect(ids(try g.nearest(1, to: point(90, 123))) == ["e"])
    // From the south pole: d at 1°, c at 170°, a and b at 179°, e at 180°.
    let south = try g.nearest(5, to: point(-90, 0))
    #expect(ids(south) == ["d", "c", "a", "b", "e"])
    #expect(abs(south[1].distanceMeters - 170 * Self.metersPerDegree) < 1e-6)
    #expect(abs(south[4].distanceMeters - Earth.halfCircumferenceMeters) < 1e-6)
  }

  @Test func queriesReachAcrossTheAntimeridian() throws {
    let g = grid([
      ("west", 0, -179.99), ("plus180", 0, 180), ("minus180", 0, -180), ("far", 0, 179.9),
      ("east", 0, 179.995),
    ])
    let found = try g.missions(within: 5000, of: point(0, 179.99))
    // 180 and -180 are the same meridian, exactly 0.01° away: the tie is ordered by id.
    #expect(ids(found) == ["east", "minus180", "plus180", "west"])
    #expect(found[1].distanceMeters == found[2].distanceMeters)
    #expect(abs(found[0].distanceMeters - 0.005 * Self.metersPerDegree) < 1e-6)
    #expect(abs(found[1].distanceMeters - 0.01 * Self.metersPerDegree) < 1e-6)
    #expect(abs(found[2].distanceMeters - 0.01 * Self.metersPerDegree) < 1e-6)
    #expect(abs(found[3].distanceMeters - 0.02 * Self.metersPerDegree) < 1e-6)
    let allFive = ["west", "plus180", "minus180", "far", "east"]
    #expect(
      found
        == expectedByScan(g, allFive, from: point(0, 179.99)).filter {
          $0.distanceMeters <= 5000
        })
    let across = try g.nearest(2, to: point(0, -179.999))
    // Here the two longitude differences round differently (by ulps): distance orders them.
    #expect(ids(across) == ["plus180", "minus180"])
    #expect(abs(across[0].distanceMeters - 0.001 * Self.metersPerDegree) < 1e-6)
    let box = try BoundingBox(south: -1, west: 179.95, north: 1, east: -179.995)
    #expect(
      ids(try g.missions(in: box, sortedByDistanceFrom: point(0, 180)))
        == ["minus180", "plus180", "east"])
  }

  @Test func radiusZeroReturnsOnlyMissionsExactlyAtTheCentre() throws {
    let g = grid([("here", 59.33, 18.07), ("there", 59.33, 18.070_000_001), ("also", 59.33, 18.07)])
    let found = try g.missions(within: 0, of: point(59.33, 18.07))
    #expect(ids(found) == ["also", "here"])
    #expect(found.allSatisfy { $0.distanceMeters == 0 })
  }

  @Test func aRadiusOfHalfTheCircumferenceReturnsEverything() throws {
    let g = grid([("antipode", 0, 180), ("near", 0, 1), ("pole", -90, 0)])
    let all = try g.missions(within: Earth.halfCircumferenceMeters, of: point(0, 0))
    #expect(ids(all) == ["near", "pole", "antipode"])
    #expect(all[2].distanceMeters == Earth.halfCircumferenceMeters)
    #expect(ids(try g.missions(within: 1e9, of: point(0, 0))) == ["near", "pole", "antipode"])
  }

  @Test func kZeroAndAnEmptyGridReturnNothing() throws {
    let g = grid([("a", 1, 1)])
    #expect(try g.nearest(0, to: point(1, 1)).isEmpty)
    #expect(
      try g.missions(
        in: BoundingBox(south: 0, west: 0, north: 2, east: 2),
        sortedByDistanceFrom: point(1, 1), limit: 0
      ).isEmpty)
    let empty = try SpatialGrid<String>()
    #expect(try empty.nearest(3, to: point(1, 1)).isEmpty)
    #expect(try empty.missions(within: 1e9, of: point(1, 1)).isEmpty)
    #expect(try g.nearest(5, to: point(0, 0)).count == 1)
  }

  @Test func tiesAreBrokenById() throws {
    let g = grid([("b", 10, 10), ("a", 10, 10), ("c", 10, 10), ("aa", 10, 10.5)])
    #expect(ids(try g.missions(within: 10, of: point(10, 10))) == ["a", "b", "c"])
    #expect(ids(try g.nearest(2, to: point(10, 10))) == ["a", "b"])
    // Equidistant east and west of the centre.
    let pair = grid([("z", 0, 0.5), ("y", 0, -0.5)])
    #expect(ids(try pair.nearest(2, to: point(0, 0))) == ["y", "z"])
  }

  @Test func thePredicateIsAppliedBeforeTheLimit() throws {
    var g = grid([("n1", 0, 0.001), ("n2", 0, 0.002), ("n3", 0, 0.003), ("n4", 0, 0.004)])
    g.setPayload("accepted", for: "n1")
    g.setPayload("accepted", for: "n2")
    let open = try g.nearest(2, to: point(0, 0), where: { $0 == "open" })
    #expect(ids(open) == ["n3", "n4"])
    #expect(abs(open[0].distanceMeters - 0.003 * Self.metersPerDegree) < 1e-6)
    let box = try BoundingBox(south: -1, west: -1, north: 1, east: 1)
    #expect(
      ids(
        try g.missions(
          in: box, sortedByDistanceFrom: point(0, 0), limit: 1,
          where: { $0 == "open" })) == ["n3"])
    #expect(
      ids(try g.missions(within: 1e6, of: point(0, 0), where: { $0 != "open" })) == ["n1", "n2"])
  }

  @Test func moveRemoveAndStateChangesUpdateTheIndex() throws {
    var g = grid([("a", 59.0, 18.0), ("b", 59.0, 18.01)])
    let moved = g.move("a", to: point(-33.9, 151.2))
    let movedUnknown = g.move("zzz", to: point(0, 0))
    #expect(moved && !movedUnknown)
    #expect(ids(try g.nearest(5, to: point(59.0, 18.0), within: 10_000)) == ["b"])
    #expect(ids(try g.nearest(1, to: point(-33.9, 151.2))) == ["a"])
    #expect(g.coordinate(of: "a") == point(-33.9, 151.2))

    let oldState = g.setPayload("cancelled", for: "b")
    #expect(oldState == "open")
    #expect(try g.missions(within: 10_000, of: point(59, 18), where: { $0 == "open" }).isEmpty)
    #expect(g.payload(of: "b") == "cancelled")

    let removed = g.remove("b")
    let removedAgain = g.remove("b")
    #expect(removed == "cancelled" && removedAgain == nil)
    #expect(!g.contains("b"))
    #expect(g.count == 1)
    #expect(try g.missions(within: 1e9, of: point(0, 0)).map(\.id) == ["a"])

    // Insert of a known id moves it and replaces the payload.
    let replaced = g.insert("a", at: point(1, 1), payload: "accepted")
    let added = g.insert("c", at: point(1, 1.001), payload: "open")
    #expect(replaced == "open" && added == nil)
    #expect(ids(try g.nearest(5, to: point(1, 1))) == ["a", "c"])
    #expect(g.count == 2)
  }

  @Test func aBulkBuildKeepsTheLastOfRepeatedIds() throws {
    let g = try SpatialGrid([
      ("x", point(1, 1), 1), ("y", point(2, 2), 2), ("x", point(3, 3), 3),
    ])
    #expect(g.count == 2)
    #expect(g.coordinate(of: "x") == point(3, 3))
    #expect(g.payload(of: "x") == 3)
    #expect(ids(try g.missions(within: 1e9, of: point(3, 3))) == ["x", "y"])
  }

  @Test func invalidInputThrowsAClearError() throws {
    let g = grid([("a", 1, 1)])
    #expect(throws: ProximityError.invalidDistance(-1)) {
      try g.missions(within: -1, of: point(0, 0))
    }
    #expect(throws: ProximityError.self) { try g.missions(within: .nan, of: point(0, 0)) }
    #expect(throws: ProximityError.invalidDistance(.infinity)) {
      try g.nearest(1, to: point(0, 0), within: .infinity)
    }
    #expect(throws: ProximityError.invalidCount(-1)) { try g.nearest(-1, to: point(0, 0)) }
    #expect(throws: ProximityError.invalidLatitude(91)) {
      try Coordinate(latitude: 91, longitude: 0)
    }
    #expect(throws: ProximityError.self) { try Coordinate(latitude: .nan, longitude: 0) }
    #expect(throws: ProximityError.self) { try SpatialGrid<Int>(targetMissionsPerCell: 0) }
    #expect(throws: ProximityError.invalidCount(-2)) {
      try g.missions(
        in: BoundingBox(south: 0, west: 0, north: 2, east: 2),
        sortedByDistanceFrom: point(0, 0), limit: -2)
    }
  }

  @Test func aCityOfOneHundredThousandMissionsInAFewCellsIsExact() throws {
    // 100,000 missions within ~300 m of Stockholm's centre, plus a few far away so the grid's
    // cells are much larger than the city.
    var rng = SplitMix64(seed: 11)
    var missions: [(id: String, coordinate: Coordinate, payload: Int)] = (0..<100_000).map {
      let lat = 59.3293 + Double.random(in: -0.003...0.003, using: &rng)
      let lon = 18.0686 + Double.random(in: -0.005...0.005, using: &rng)
      return ("c\($0)", point(lat, lon), $0 % 2)
    }
    missions += [("far1", point(-45, -170), 0), ("far2", point(70, 170), 0)]
    let g = try SpatialGrid(missions)
    let center = point(59.3293, 18.0686)
    let found = try g.nearest(10, to: center, where: { $0 == 1 })
    let expected = missions.filter { $0.payload == 1 }
      .map { ProximityMatch(id: $0.id, distanceMeters: center.distance(to: $0.coordinate)) }
      .sorted { ($0.distanceMeters, $0.id) < ($1.distanceMeters, $1.id) }
    #expect(found == Array(expected.prefix(10)))
    let within = try g.missions(within: 100, of: center, where: { $0 == 1 })
    #expect(within == expected.filter { $0.distanceMeters <= 100 })
  }

  @Test func copiesAreIndependentSnapshots() throws {
    var writer = grid([("a", 0, 0)])
    let snapshot = writer
    writer.insert("b", at: point(0, 0.001), payload: "open")
    writer.move("a", to: point(10, 10))
    #expect(ids(try snapshot.nearest(5, to: point(0, 0))) == ["a"])
    #expect(ids(try writer.nearest(5, to: point(0, 0))) == ["b", "a"])
  }
}
