import Foundation
import MissionTracking
import Testing

@testable import MissionStore

/// Schema version 2 stores most `fix` events without their JSON line and rebuilds it from
/// the track on read; these pin that the rebuilt line is the printed one, byte for byte.
@Suite struct CompactFixEventTests {
  private let holdBatches = StoreConfiguration(
    synchronous: .normal,
    groupCommit: GroupCommitPolicy(maxEvents: 10_000, maxDelay: .seconds(3600)))

  /// Awkward values: signed zero, integral, tiny, huge, non-finite, ordinary.
  private static let edgeValues: [Double] = [
    0, -0.0, 1, -1, 12.5, 1e-300, -1e-300, 1e300, 123_456_789_012, 0.1, 1 / 3,
    .nan, .infinity, -.infinity, .leastNonzeroMagnitude,
  ]

  private func value(_ generator: inout SplitMix64, finite: Bool = false) -> Double {
    let pool = finite ? Self.edgeValues.filter(\.isFinite) : Self.edgeValues
    if Bool.random(using: &generator) { return Double.random(in: -500...500, using: &generator) }
    return pool.randomElement(using: &generator)!
  }

  private func optional(_ generator: inout SplitMix64) -> Double? {
    Int.random(in: 0..<4, using: &generator) == 0 ? nil : value(&generator)
  }

  /// Random fix events, some with event times off their fix's (by less than a microsecond
  /// or around a millisecond boundary), times on half-millisecond edges included.
  private func randomEvents(count: Int, seed: UInt64) -> [TrackingEvent] {
    var generator = SplitMix64(seed: seed)
    var seconds = 1_780_000_000.0
    return (0..<count).map { _ in
      seconds +=
        [0.001, 0.0015, 0.1, 1, 0.0004995, 0.0005][Int.random(in: 0..<6, using: &generator)]
      let fix = Fix(
        time: Date(timeIntervalSince1970: seconds),
        coordinate: Coordinate(
          uncheckedLatitude: [
            0, -0.0, 59.3293, 90, -90, Double.random(in: -90...90, using: &generator),
          ]
          .randomElement(using: &generator)!,
          longitude: [
            0, -0.0, 18.0686, 180, -180, Double.random(in: -180...180, using: &generator),
          ]
          .randomElement(using: &generator)!),
        source: "test", altitudeMeters: optional(&generator),
        horizontalAccuracyMeters: optional(&generator),
        speedMetersPerSecond: optional(&generator), courseDegrees: optional(&generator),
        satellitesUsed: 7)
      let offset = [0, 0, 0, 0, 4e-7, 0.0004999, -0.0006][Int.random(in: 0..<7, using: &generator)]
      return TrackingEvent(
        time: fix.time.addingTimeInterval(offset), missionID: "m",
        kind: .fix(
          fix, distanceToMissionMeters: value(&generator), travelledMeters: value(&generator)))
    }
  }

  @Test func fixEventLinesComeBackByteIdenticalWhateverTheValues() throws {
    let directory = try TemporaryDirectory()
    let events = randomEvents(count: 3000, seed: 0xC0FFEE)
    do {
      let database = try Fixtures.database(
        in: directory, missions: [Fixtures.mission("m", state: .active)],
        configuration: holdBatches)
      try database.record(contentsOf: events)
      #expect(try database.eventLines(ofMission: "m") == events.map(\.jsonLine))
      try database.close()
    }
    // And after reopening, through both queries.
    let reopened = try MissionDatabase(path: directory.path())
    let lines = events.map(\.jsonLine)
    #expect(try reopened.eventLines(ofMission: "m") == lines)
    #expect(try reopened.events().map(\.jsonLine) == lines)
    try reopened.withConnection { connection throws in
      let compact = try connection.integer("SELECT count(*) FROM events WHERE json = ''") ?? 0
      let verbatim = try connection.integer("SELECT count(*) FROM events WHERE json <> ''") ?? 0
      // Both paths are exercised: plain fixes compact, awkward ones keep their text.
      #expect(compact > 100)
      #expect(verbatim > 100)
      #expect(compact + verbatim == Int64(events.count))
    }
  }

  @Test func ordinaryFixEventsAreStoredWithoutTheirLine() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)])
    let events = (0..<50).map { Fixtures.fixEvent($0, mission: "m") }
    try database.record(contentsOf: events)
    #expect(try database.eventLines(ofMission: "m") == events.map(\.jsonLine))
    try database.withConnection { connection throws in
      #expect(try connection.integer("SELECT count(*) FROM events WHERE json = ''") == 50)
      #expect(
        try connection.integer("SELECT count(*) FROM events WHERE distance_m = 100") == 50)
    }
  }

  @Test func aVersionOneDatabaseMigratesAndKeepsItsLinesWhileNewOnesAreCompact() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    let old = Fixtures.fixEvent(0, mission: "m")
    let enter = TrackingEvent(
      time: old.time, missionID: "m",
      kind: .enter(fenceID: "n", distanceMeters: 12.5, initial: true))
    do {
      let v1 = try MissionDatabase(
        path: path, configuration: StoreConfiguration(),
        migrations: Array(SchemaMigration.all.prefix(1)))
      // What a version-1 build wrote: the mission, a fix event's track row and its full line.
      try v1.withConnection { connection throws in
        try connection.execute(
          """
          INSERT INTO missions (id, lat, lon, radius_m, state, updated_us)
          VALUES ('m', 59.3293, 18.0686, 50, 'active', 0)
          """)
        #expect(try connection.integer("PRAGMA user_version") == 1)
        guard case .fix(let fix, _, _) = old.kind else { return }
        let track = try connection.cached(
          """
          INSERT INTO track (mission_id, time_us, lat, lon, mode, source)
          VALUES ('m', :time, :lat, :lon, 3, 'test')
          """)
        try track.bind([
          "time": microseconds(fix.time), "lat": fix.coordinate.latitude,
          "lon": fix.coordinate.longitude,
        ])
        try track.run()
        let event = try connection.cached(
          "INSERT INTO events (mission_id, type, time_us, json) VALUES ('m', :type, :time, :json)")
        for stored in [old, enter] {
          try event.bind([
            "type": stored.type, "time": microseconds(stored.time), "json": stored.jsonLine,
          ])
          try event.run()
          event.reset()
        }
      }
      try v1.close()
    }
    let upgraded = try MissionDatabase(path: path)
    let new = (1..<5).map { Fixtures.fixEvent($0, mission: "m") }
    try upgraded.record(contentsOf: new)
    #expect(try upgraded.eventLines(ofMission: "m") == ([old, enter] + new).map(\.jsonLine))
    // Version 3 gave the old rows their typed columns: they read back as values.
    #expect(try upgraded.events(ofMission: "m")[1].event == enter)
    try upgraded.withConnection { connection throws in
      #expect(try connection.integer("PRAGMA user_version") == 9)
      #expect(try connection.integer("SELECT count(*) FROM events WHERE json = ''") == 4)
      // Version 5 copied the rows into the AUTOINCREMENT table with their numbers, and its
      // counter starts from the newest of them.
      #expect(
        try connection.integer("SELECT seq FROM sqlite_sequence WHERE name = 'events'")
          == connection.integer("SELECT max(seq) FROM events"))
      #expect(try connection.integer("SELECT count(*) FROM events") == 6)
    }
    #expect(try upgraded.integrityCheck() == ["ok"])
  }
}
