import Foundation
import MissionTracking
import Testing

@testable import MissionStore

@Suite struct MissionDatabaseTests {
  @Test func missionsRoundTripThroughAFileOnDisk() throws {
    let directory = try TemporaryDirectory()
    let missions = [
      Fixtures.mission("1"), Fixtures.mission("b-2", state: .accepted, lat: -33.9),
      Mission(id: "bare", coordinate: try Coordinate(latitude: 0.5, longitude: -179.5)),
    ]
    do {
      let database = try Fixtures.database(in: directory, missions: missions)
      try database.close()
    }
    let reopened = try MissionDatabase(path: directory.path())
    // A mission written past open without a worker belongs to the rig's own (schema 7).
    var stored = missions
    stored[1].workerID = Worker.localID
    #expect(try reopened.missions() == stored.sorted { $0.id < $1.id })
    #expect(try reopened.mission(id: "b-2") == stored[1])
    #expect(try reopened.mission(id: "nope") == nil)
    #expect(try reopened.missions(inState: .accepted).map(\.id) == ["b-2"])
    #expect(try reopened.missionCount() == 3)
    #expect(try reopened.integrityCheck() == ["ok"])
  }

  @Test func openingAFileSetsWALForeignKeysAndTheSchemaVersion() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory)
    #expect(try database.journalMode() == "wal")
    try database.withConnection { connection throws in
      #expect(try connection.integer("PRAGMA foreign_keys") == 1)
      #expect(try connection.integer("PRAGMA synchronous") == 1)  // NORMAL
      #expect(try connection.integer("PRAGMA user_version") == 9)
      #expect(
        try connection.strings("SELECT name FROM schema_migrations ORDER BY version")
          == [
            "initial schema", "compact fix events", "one tracked mission, change feed",
            "spatial cell index, deadline index", "event sequence never reused",
            "state check without a list", "workers, one tracked mission per worker",
            "outbox: webhooks, cursors, deliveries", "device registry version",
          ])
    }
    let full = try MissionDatabase(path: directory.path("full.sqlite"))
    try full.withConnection { connection throws in
      #expect(try connection.integer("PRAGMA synchronous") == 2)
    }  // FULL
  }

  @Test func migrationsRunInOrderOnceAndAreRecorded() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    let current = MissionDatabase.schemaVersion
    let v2 = SchemaMigration(
      version: current + 1, name: "notes",
      sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT);")
    let v3 = SchemaMigration(
      version: current + 2, name: "notes index", sql: "CREATE INDEX notes_by_text ON notes (text);")
    try MissionDatabase(
      path: path, configuration: StoreConfiguration(), migrations: SchemaMigration.all
    ).insert([Fixtures.mission("kept")])
    let upgraded = try MissionDatabase(
      path: path, configuration: StoreConfiguration(),
      migrations: SchemaMigration.all + [v2, v3])
    try upgraded.withConnection { connection throws in
      #expect(try connection.integer("PRAGMA user_version") == Int64(current + 2))
      #expect(
        try connection.strings("SELECT name FROM schema_migrations ORDER BY version")
          == [
            "initial schema", "compact fix events", "one tracked mission, change feed",
            "spatial cell index, deadline index", "event sequence never reused",
            "state check without a list", "workers, one tracked mission per worker",
            "outbox: webhooks, cursors, deliveries", "device registry version", "notes",
            "notes index",
          ])
      // Running the migrator again finds nothing to do.
      #expect(
        try SchemaMigrator(migrations: SchemaMigration.all + [v2, v3]).migrate(connection) == 0)
    }
    #expect(try upgraded.mission(id: "kept") != nil)
  }

  @Test func aFailingMigrationLeavesTheDatabaseAtItsOldVersion() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    try MissionDatabase(path: path).close()
    let broken = SchemaMigration(
      version: MissionDatabase.schemaVersion + 1, name: "broken",
      sql: "CREATE TABLE half (id INTEGER); CREATE TABLE oops (id INTEGER")
    #expect {
      _ = try MissionDatabase(
        path: path, configuration: StoreConfiguration(), migrations: SchemaMigration.all + [broken])
    } throws: { error in
      guard case StoreError.sqlite(_, _, let sql) = error else { return false }
      return sql.contains("CREATE TABLE oops")
    }
    let database = try MissionDatabase(path: path)
    try database.withConnection { connection throws in
      #expect(try connection.integer("PRAGMA user_version") == Int64(MissionDatabase.schemaVersion))
      #expect(
        try connection.integer("SELECT count(*) FROM sqlite_master WHERE name = 'half'") == 0)
    }
  }

  @Test func aVersionFiveFileGetsItsStateCheckWithoutAListInPlace() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    do {
      let v5 = try MissionDatabase(
        path: path, configuration: StoreConfiguration(),
        migrations: Array(SchemaMigration.all.prefix(5)))
      try Fixtures.insertBeforeWorkers([Fixtures.mission("kept", state: .accepted)], into: v5)
      try v5.close()
    }
    let upgraded = try MissionDatabase(path: path)
    try upgraded.withConnection { connection throws in
      #expect(try connection.integer("PRAGMA user_version") == 9)
      #expect(try connection.integer("PRAGMA writable_schema") == 0)
      let definition =
        try connection.strings("SELECT sql FROM sqlite_schema WHERE name = 'missions'").first
        ?? ""
      #expect(!definition.contains("state IN"))
      #expect(definition.contains(SchemaMigration.stateCheckWithoutList.new))
      // The new check is in force on the connection that made the change: every state
      // passes, anything else is refused.
      for state in MissionState.allCases {
        try connection.execute(
          """
          INSERT INTO missions (id, lat, lon, radius_m, state, updated_us)
          VALUES ('probe', 0, 0, 1, '\(state.rawValue)', 0);
          DELETE FROM missions WHERE id = 'probe';
          """)
      }
      for bad in ["bogus", "Open", "open ", ""] {
        #expect {
          try connection.execute(
            """
            INSERT INTO missions (id, lat, lon, radius_m, state, updated_us)
            VALUES ('probe', 0, 0, 1, '\(bad)', 0)
            """)
        } throws: { error in
          guard case StoreError.constraint(.check, let message, _) = error else { return false }
          // SQLite names the check that failed: the new one, not the list.
          return message.contains("CHECK constraint failed: state = 'open'")
        }
      }
    }
    #expect(try upgraded.mission(id: "kept")?.state == .accepted)
    #expect(try upgraded.missionCount() == 1)
    #expect(try upgraded.integrityCheck() == ["ok"])
  }

  @Test func anEditOfADefinitionWithoutItsTextFailsAndChangesNothing() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    try MissionDatabase(path: path).close()
    let definition = { (database: MissionDatabase) in
      try database.withConnection { connection throws in
        try connection.strings("SELECT sql FROM sqlite_schema WHERE name = 'missions'")
      }
    }
    let before = try definition(MissionDatabase(path: path))
    // Version 6 again: the text it replaces is gone.
    let again = SchemaMigration(
      version: MissionDatabase.schemaVersion + 1, name: "again", sql: "",
      edit: SchemaMigration.stateCheckWithoutList)
    #expect {
      _ = try MissionDatabase(
        path: path, configuration: StoreConfiguration(), migrations: SchemaMigration.all + [again])
    } throws: { error in
      guard case StoreError.sqlite(_, let message, _) = error else { return false }
      return message == "the definition of table missions is not the one this step changes"
    }
    let database = try MissionDatabase(path: path)
    #expect(try definition(database) == before)
    try database.withConnection { connection throws in
      #expect(try connection.integer("PRAGMA user_version") == Int64(MissionDatabase.schemaVersion))
    }
  }

  @Test func aDatabaseFromANewerVersionIsRefusedAndLeftUntouched() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    do {
      let database = try MissionDatabase(path: path)
      try database.insert([Fixtures.mission("m")])
      try database.withConnection { try $0.execute("PRAGMA user_version = 99") }
      try database.close()
    }
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(
      throws: StoreError.newerSchema(
        path: path, found: 99, supported: MissionDatabase.schemaVersion)
    ) {
      _ = try MissionDatabase(path: path)
    }
    #expect(
      throws: StoreError.newerSchema(
        path: path, found: 99, supported: MissionDatabase.schemaVersion)
    ) {
      _ = try MissionDatabase(path: path, configuration: StoreConfiguration(readOnly: true))
    }
    let after = try Data(contentsOf: URL(fileURLWithPath: path))
    #expect(before == after)
    #expect(
      "\(StoreError.newerSchema(path: path, found: 99, supported: MissionDatabase.schemaVersion))"
        .contains("not modified"))
  }

  @Test func aReadOnlyOpenRefusesAnUnmigratedFile() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    try MissionDatabase(path: path, configuration: StoreConfiguration(), migrations: []).close()
    #expect(
      throws: StoreError.outdatedSchema(
        path: path, found: 0, required: MissionDatabase.schemaVersion)
    ) {
      _ = try MissionDatabase(path: path, configuration: StoreConfiguration(readOnly: true))
    }
  }

  @Test func aFileThatIsNotADatabaseFailsWithSQLitesMessage() throws {
    let directory = try TemporaryDirectory()
    let url = try directory.write(String(repeating: "not a database\n", count: 100), to: "x.sqlite")
    #expect {
      _ = try MissionDatabase(path: url.path)
    } throws: { error in
      guard case StoreError.notADatabase(let message, _) = error else { return false }
      return message.contains("not a database")
    }
  }

  @Test func sqliteErrorsCarryTheKindTheMessageAndTheSQL() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory)
    var bad = Fixtures.mission("zero")
    bad.geofenceRadiusMeters = 0
    #expect {
      try database.insert([Fixtures.mission("ok"), bad])
    } throws: { error in
      guard case StoreError.constraint(.check, let message, let sql) = error else { return false }
      return message.contains("CHECK") && sql.contains("INSERT INTO missions")
    }
    #expect(try database.missionCount() == 0)  // one transaction
    #expect(throws: StoreError.duplicateMission("ok")) {
      try database.insert([Fixtures.mission("ok"), Fixtures.mission("ok")])
    }
  }

  @Test func aClosedDatabaseSaysSo() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory)
    try database.close()
    try database.close()
    #expect(throws: StoreError.closed(path: directory.path())) { _ = try database.missions() }
  }

  @Test func missionLocationsMatchTheStoredMissions() throws {
    let directory = try TemporaryDirectory()
    var generator = SplitMix64(seed: 7)
    let missions = (0..<500).map { i in
      Mission(
        id: "m\(i)",
        coordinate: try! Coordinate(
          latitude: Double.random(in: -90...90, using: &generator),
          longitude: Double.random(in: -180...180, using: &generator)),
        state: MissionState.allCases.randomElement(using: &generator)!)
    }.map { mission in
      // At most one mission is tracked: the schema refuses a second.
      var kept = mission
      if kept.state.isTracking && kept.id != "m0" { kept.state = .accepted }
      return kept
    }
    let database = try Fixtures.database(in: directory, missions: missions)
    let locations = try database.missionLocations()
    let expected = missions.map {
      MissionLocation(id: $0.id, coordinate: $0.coordinate, state: $0.state)
    }
    #expect(Set(locations) == Set(expected))
    #expect(locations.count == missions.count)
  }

  @Test(arguments: MissionState.allCases)
  func theFastStateDecoderAgreesWithTheRawValues(state: MissionState) {
    var name = state.rawValue
    let decoded = name.withUTF8 { MissionDatabase.state(utf8: $0) }
    #expect(decoded == state)
  }
}

@Suite struct QueryPlanTests {
  @Test func theBulkLocationReadUsesTheCoveringIndex() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory, missions: [Fixtures.mission("a")])
    try database.withConnection { connection throws in
      let plan = try connection.prepare(
        "EXPLAIN QUERY PLAN SELECT id, lat, lon, state FROM missions")
      var details: [String] = []
      while try plan.step() { details.append(try plan.string("detail") ?? "") }
      #expect(details.contains { $0.contains("COVERING INDEX missions_by_cell") }, "\(details)")
    }
  }
}
