import Foundation
import MissionTracking
import Testing

@testable import MissionProximity
@testable import MissionStore

/// `nearbyMissions` (the SQLite cell index) against the in-memory grid (`proximityIndex()`),
/// which is itself tested against a brute-force scan: the answers must be equal, value for
/// value, including the order of ties and the bits of every distance.
@Suite struct NearbyQueryTests {
  /// States the random missions take (at most one mission may be active or arrived).
  static let states: [MissionState] = [.open, .open, .open, .accepted, .cancelled, .completed]

  /// A random coordinate: anywhere, near a pole, near or on the antimeridian, or in a dense
  /// town, with some exactly on ±90 and ±180.
  static func coordinate(_ rng: inout SplitMix64) -> Coordinate {
    func uniform(_ range: ClosedRange<Double>) -> Double { Double.random(in: range, using: &rng) }
    let lat: Double
    let lon: Double
    switch Int.random(in: 0..<10, using: &rng) {
    case 0:
      lat = [90.0, -90.0, 89.99, -89.99][Int.random(in: 0..<4, using: &rng)]
      lon = uniform(-180...180)
    case 1:
      lat = (Bool.random(using: &rng) ? 1 : -1) * uniform(88...90)
      lon = uniform(-180...180)
    case 2:
      lat = uniform(-70...70)
      lon = [180.0, -180.0][Int.random(in: 0..<2, using: &rng)]
    case 3:
      lat = uniform(-60...60)
      lon = Bool.random(using: &rng) ? uniform(179.9...180) : uniform(-180 ... -179.9)
    case 4, 5, 6:
      // A town of a few kilometres: many missions per cell, and ties.
      lat = 59.3293 + uniform(-0.02...0.02)
      lon = 18.0686 + uniform(-0.04...0.04)
    default:
      lat = asin(uniform(-1...1)) * 180 / .pi
      lon = uniform(-180...180)
    }
    return Coordinate(uncheckedLatitude: min(90, max(-90, lat)), longitude: lon)
  }

  /// `count` missions at random coordinates; every tenth shares another's coordinate.
  static func missions(count: Int, seed: UInt64) -> [Mission] {
    var rng = SplitMix64(seed: seed)
    var coordinates: [Coordinate] = []
    return (0..<count).map { index in
      var coordinate = coordinate(&rng)
      if index % 10 == 9, let earlier = coordinates.randomElement(using: &rng) {
        coordinate = earlier
      }
      coordinates.append(coordinate)
      return Mission(
        id: "m\(index)", coordinate: coordinate,
        state: states[Int.random(in: 0..<states.count, using: &rng)])
    }
  }

  /// A query radius: zero, small, a cell or two, large, the whole Earth or beyond.
  static func radius(_ rng: inout SplitMix64) -> Double {
    switch Int.random(in: 0..<8, using: &rng) {
    case 0: 0
    case 1: Double.random(in: 0...200, using: &rng)
    case 2: Double.random(in: 200...5000, using: &rng)
    case 3: Double.random(in: 5000...300_000, using: &rng)
    case 4: Double.random(in: 300_000...5_000_000, using: &rng)
    case 5: Double.random(in: 5_000_000...Earth.halfCircumferenceMeters, using: &rng)
    case 6: Earth.halfCircumferenceMeters * Double.random(in: 1...3, using: &rng)
    default: Double.random(in: 0...2000, using: &rng)
    }
  }

  /// Compares `count` random queries of `database` with `grid`.
  static func compare(
    _ database: MissionDatabase, _ grid: SpatialGrid<MissionState>, stored: [Mission],
    queries: Int, seed: UInt64
  ) throws {
    var rng = SplitMix64(seed: seed)
    for _ in 0..<queries {
      var center = coordinate(&rng)
      if !stored.isEmpty, Int.random(in: 0..<4, using: &rng) == 0 {
        center = stored[Int.random(in: 0..<stored.count, using: &rng)].coordinate
      }
      var radius = radius(&rng)
      if !stored.isEmpty, Int.random(in: 0..<4, using: &rng) == 0 {
        // A radius that ends exactly on a mission: the boundary is inclusive.
        radius = center.distance(
          to: stored[Int.random(in: 0..<stored.count, using: &rng)].coordinate)
      }
      let state: MissionState? =
        Bool.random(using: &rng) ? nil : states[Int.random(in: 0..<states.count, using: &rng)]
      let filter: ((MissionState) -> Bool)? = state.map { wanted in { $0 == wanted } }
      let k = [0, 1, 2, 5, 10, 25, 100, 5000][Int.random(in: 0..<8, using: &rng)]

      let within = try database.nearbyMissions(within: radius, of: center, state: state)
      #expect(
        within == (try grid.missions(within: radius, of: center, where: filter)),
        "within \(radius) m of \(center), state \(String(describing: state))")
      let nearest = try database.nearbyMissions(of: center, limit: k, state: state)
      #expect(
        nearest == (try grid.nearest(k, to: center, where: filter)),
        "\(k) nearest to \(center), state \(String(describing: state))")
      let bounded = try database.nearbyMissions(
        within: radius, of: center, limit: k, state: state)
      #expect(
        bounded == (try grid.nearest(k, to: center, within: radius, where: filter)),
        "\(k) nearest within \(radius) m of \(center), state \(String(describing: state))")
    }
  }

  @Test(arguments: [(1, UInt64(7)), (40, 11), (3000, 42)])
  func randomQueriesEqualTheGrid(count: Int, seed: UInt64) throws {
    let database = try MissionDatabase(path: ":memory:")
    let stored = Self.missions(count: count, seed: seed)
    try database.insert(stored)
    try Self.compare(
      database, try database.proximityIndex(), stored: stored, queries: count > 100 ? 300 : 150,
      seed: seed &+ 1)
  }

  @Test func anEmptyDatabaseFindsNothing() throws {
    let database = try MissionDatabase(path: ":memory:")
    let center = try Coordinate(latitude: 10, longitude: 20)
    #expect(try database.nearbyMissions(within: 1e7, of: center).isEmpty)
    #expect(try database.nearbyMissions(of: center, limit: 3).isEmpty)
    #expect(try database.nearbyMissions(of: center).isEmpty)
  }

  @Test func theAntimeridianAndThePolesAreOnePlace() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.insert([
      Mission(id: "east", coordinate: try Coordinate(latitude: 0, longitude: 180)),
      Mission(id: "west", coordinate: try Coordinate(latitude: 0, longitude: -180)),
      Mission(id: "near-west", coordinate: try Coordinate(latitude: 0, longitude: -179.9999)),
      Mission(id: "pole-a", coordinate: try Coordinate(latitude: 90, longitude: 0)),
      Mission(id: "pole-b", coordinate: try Coordinate(latitude: 90, longitude: 123)),
      Mission(id: "south", coordinate: try Coordinate(latitude: -89.999, longitude: -45)),
    ])
    let onMeridian = try database.nearbyMissions(
      within: 0, of: try Coordinate(latitude: 0, longitude: 180))
    #expect(onMeridian.map(\.id) == ["east", "west"])
    let grid = try database.proximityIndex()
    // 11 m to both spellings of the meridian (the two differences round apart), 22 m to
    // -179.9999.
    let eastOfIt = try Coordinate(latitude: 0, longitude: 179.9999)
    let across = try database.nearbyMissions(within: 20, of: eastOfIt)
    #expect(Set(across.map(\.id)) == ["east", "west"])
    #expect(across == (try grid.missions(within: 20, of: eastOfIt)))
    #expect(try database.nearbyMissions(within: 23, of: eastOfIt).count == 3)
    // Every longitude meets at a pole (cos 90° is 6e-17, not 0: a nanometre apart).
    let northPole = try Coordinate(latitude: 90, longitude: -77)
    let pole = try database.nearbyMissions(within: 1e-6, of: northPole)
    #expect(Set(pole.map(\.id)) == ["pole-a", "pole-b"])
    #expect(pole == (try grid.missions(within: 1e-6, of: northPole)))
    let southPole = try Coordinate(latitude: -90, longitude: 100)
    #expect(try database.nearbyMissions(of: southPole, limit: 1).map(\.id) == ["south"])
    let everything = try database.nearbyMissions(
      within: Earth.halfCircumferenceMeters, of: southPole)
    #expect(everything.count == 6)
    #expect(everything == (try grid.missions(within: Earth.halfCircumferenceMeters, of: southPole)))
  }

  @Test(arguments: [-1, -.infinity, .infinity, .nan, -0.000_001])
  func aHostileRadiusIsRefused(radius: Double) throws {
    let database = try MissionDatabase(path: ":memory:")
    let center = try Coordinate(latitude: 59, longitude: 18)
    #expect(throws: ProximityError.self) {
      try database.nearbyMissions(within: radius, of: center)
    }
    #expect(throws: ProximityError.self) {
      try database.nearbyMissions(within: radius, of: center, limit: 3)
    }
  }

  @Test(arguments: [-1, Int.min])
  func aNegativeLimitIsRefused(limit: Int) throws {
    let database = try MissionDatabase(path: ":memory:")
    #expect(throws: ProximityError.invalidCount(limit)) {
      try database.nearbyMissions(of: try Coordinate(latitude: 0, longitude: 0), limit: limit)
    }
  }

  @Test func hugeRadiiAndLimitsReturnEveryMatch() throws {
    let database = try MissionDatabase(path: ":memory:")
    let stored = Self.missions(count: 200, seed: 3)
    try database.insert(stored)
    let center = try Coordinate(latitude: -33.9, longitude: 151.2)
    let grid = try database.proximityIndex()
    #expect(
      try database.nearbyMissions(within: .greatestFiniteMagnitude, of: center, limit: .max)
        == (try grid.nearest(.max, to: center, within: .greatestFiniteMagnitude)))
    #expect(
      try database.nearbyMissions(within: .greatestFiniteMagnitude, of: center).count == 200)
    #expect(
      try database.nearbyMissions(of: center, limit: .max, state: .open)
        == (try grid.nearest(.max, to: center, where: { $0 == .open })))
  }

  /// Moves, state changes, inserts and deletes reach the index with the row: SQLite keeps
  /// an index on an expression in step itself.
  @Test func theIndexFollowsEveryChange() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory)
    var stored = Self.missions(count: 400, seed: 5)
    try database.insert(stored)
    var rng = SplitMix64(seed: 6)
    // Move a quarter of them (replace by import), cancel some, delete some, add some.
    var csv = "id,lat,lon,state\n"
    for index in stride(from: 0, to: 400, by: 4) {
      let moved = Self.coordinate(&rng)
      csv += "m\(index),\(moved.latitude),\(moved.longitude),open\n"
      stored[index] = Mission(id: "m\(index)", coordinate: moved)
    }
    try database.importMissions(
      Array(csv.utf8), format: .csv, fileName: "moves.csv", replacingExisting: true)
    for index in stride(from: 1, to: 400, by: 8) where stored[index].state == .open {
      try database.apply(.cancel, toMission: "m\(index)")
    }
    try database.withConnection { connection in
      // Ids ending in 6 are even, so none was cancelled (no transition refers to them).
      try connection.execute("DELETE FROM missions WHERE id LIKE 'm%6'")
    }
    try database.insert(
      Self.missions(count: 50, seed: 8).map {
        var mission = $0
        mission.id = "new-" + $0.id
        return mission
      })
    let now = try database.missions()
    try Self.compare(database, try database.proximityIndex(), stored: now, queries: 150, seed: 9)
  }

  /// A version 3 file gains the index when it is opened, and answers like the grid.
  @Test func aVersionThreeDatabaseIsMigrated() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    let stored = Self.missions(count: 300, seed: 12)
    do {
      let old = try MissionDatabase(
        path: path, configuration: StoreConfiguration(synchronous: .normal),
        migrations: Array(SchemaMigration.all.prefix(3)))
      try Fixtures.insertBeforeWorkers(stored, into: old)
      try old.close()
    }
    let database = try MissionDatabase(path: path)
    let version = try database.withConnection { try SchemaMigrator.version(of: $0) }
    #expect(version == SchemaMigration.all.count)
    try Self.compare(
      database, try database.proximityIndex(), stored: stored, queries: 100, seed: 13)
  }

  @Test func theQueryKeySpellsTheIndexedExpression() {
    let compact = { (text: String) in text.filter { !$0.isWhitespace } }
    #expect(compact(SchemaMigration.spatialIndex).contains(compact(MissionCell.sqlExpression)))
  }

  @Test func theCellKeysOfSQLiteAndSwiftAgree() throws {
    let database = try MissionDatabase(path: ":memory:")
    var rng = SplitMix64(seed: 77)
    let points =
      (0..<500).map { _ in Self.coordinate(&rng) }
      + [
        Coordinate(uncheckedLatitude: 90, longitude: 180),
        Coordinate(uncheckedLatitude: -90, longitude: -180),
        Coordinate(uncheckedLatitude: 0, longitude: 0),
        Coordinate(uncheckedLatitude: 1.0 / 64, longitude: -1.0 / 64),
        Coordinate(uncheckedLatitude: -1e-300, longitude: 179.99999999999997),
      ]
    try database.withConnection { connection in
      let select = try connection.prepare(
        "SELECT \(MissionCell.sqlExpression.replacingOccurrences(of: "lat", with: ":latitude").replacingOccurrences(of: "lon", with: ":longitude")) AS key"
      )
      for point in points {
        select.rewind()
        try select.bind(["latitude": point.latitude, "longitude": point.longitude])
        #expect(try select.step())
        let swift = MissionCell.key(
          row: MissionCell.row(latitude: point.latitude),
          column: MissionCell.column(longitude: point.longitude))
        #expect(try select.int64("key") == swift, "\(point)")
      }
    }
  }
}

@Suite struct NearbyQueryPlanTests {
  @Test func nearbyReadsOnlyTheCoveringCellIndex() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.withConnection { connection in
      let plan = try connection.prepare(
        """
        EXPLAIN QUERY PLAN SELECT lat, lon, id FROM missions
        WHERE \(MissionCell.sqlExpression) BETWEEN :low AND :high AND state = :state
        """)
      var details: [String] = []
      while try plan.step() { details.append(try plan.string("detail") ?? "") }
      #expect(
        details.contains { $0.contains("COVERING INDEX missions_by_cell (<expr>>? AND <expr><?)") },
        "\(details)")
    }
  }

  @Test func expiryReadsOnlyTheMissionsWithADeadline() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.withConnection { connection in
      let plan = try connection.prepare(
        """
        EXPLAIN QUERY PLAN SELECT \(MissionDatabase.missionColumns) FROM missions
        WHERE state IN (:state0, :state1) AND deadline_us IS NOT NULL AND deadline_us < :now
        """)
      var details: [String] = []
      while try plan.step() { details.append(try plan.string("detail") ?? "") }
      #expect(details.contains { $0.contains("INDEX missions_by_deadline") }, "\(details)")
    }
  }
}
