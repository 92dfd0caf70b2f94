import Foundation
import MissionCatalog
import MissionFiles
import MissionTracking
import PostgresTestSupport
import Testing

@testable import PostgresStore

/// The bulk import's path for a large import into an empty store, which drops the
/// secondary indexes and builds them once after the insert: the result must be the one the
/// row-by-row path gives, indexes included, and a refused import must leave them as they were.
@Suite(
  .enabled(
    if: PostgresFixture.skipReason == nil,
    "PostgreSQL 15 + PostGIS 3 are not installed (Tools/setup): PostgreSQL tests skipped"))
struct PostgresImportTests {
  /// Enough missions for the empty-store path, spread over a degree of latitude.
  static let count = PostgresDatabase.indexRebuildMinimum

  static func missions(_ count: Int = count) -> [Mission] {
    (0..<count).map { Fixtures.mission("b\($0)", lat: 59 + Double($0) / Double(count)) }
  }

  /// The definitions of the indexes of `missions`, sorted.
  static func indexes(_ connection: PostgresConnection) throws -> [String] {
    let rows = try connection.query(
      "SELECT indexdef FROM pg_indexes WHERE tablename = 'missions' ORDER BY indexdef")
    return (0..<rows.count).compactMap { rows.string($0, "indexdef") }
  }

  /// Within 1 km of (59.5, 18.0686) as `nearbyMissions` asks it: the box of the circle
  /// (±0.009° of latitude, ±0.0177° of longitude) on the geometry, then the distance.
  static let withinOneKilometre = """
    location::geometry && ST_MakeEnvelope(18.0508, 59.491, 18.0864, 59.509, 4326)
    AND ST_DWithin(location, ST_SetSRID(ST_MakePoint(18.0686, 59.5), 4326)::geography, 1000)
    """

  @Test func aLargeImportIntoAnEmptyStoreEndsWithTheSameIndexes() async throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri)
    let connection = try PostgresConnection(uri: uri)
    let before = try Self.indexes(connection)
    // The GiST index on the geometry (migration 4), whose build sorts the points.
    #expect(before.contains { $0.contains("USING gist (((location)::geometry))") })

    let summary = try store.insert(Self.missions())
    #expect(summary == PostgresImportSummary(imported: Self.count, new: Self.count))
    #expect(try Self.indexes(connection) == before)
    // The rebuilt GiST index answers as a scan of the table does: the missions within 1 km
    // of 59.5° N (about 180 of them), read as `nearbyMissions` reads them (a box in degrees
    // on the index, then the distance on the geography).
    func near(index: Bool) throws -> [String] {
      try connection.execute(
        index
          ? "SET enable_seqscan = off; SET enable_bitmapscan = on; SET enable_indexscan = on"
          : "SET enable_seqscan = on; SET enable_bitmapscan = off; SET enable_indexscan = off")
      let rows = try connection.query(
        """
        SELECT id FROM missions
        WHERE \(Self.withinOneKilometre) ORDER BY id
        """)
      return (0..<rows.count).compactMap { rows.string($0, "id") }
    }
    let scanned = try near(index: false)
    #expect(scanned.count > 100)
    #expect(try near(index: true) == scanned)
    let plan = try connection.query(
      """
      EXPLAIN SELECT id FROM missions WHERE \(Self.withinOneKilometre)
      """)
    #expect(
      (0..<plan.count).contains {
        plan.string($0, "QUERY PLAN")?.contains("missions_location_geometry") == true
      })
    // Every mission reaches the change log, as on the row-by-row path.
    let logged = try connection.query("SELECT count(DISTINCT id) AS n FROM mission_changes")
    #expect(logged.int64(0, "n") == Int64(Self.count))
  }

  @Test func aRefusedLargeImportIntoAnEmptyStoreLeavesNothingAndTheIndexes() async throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri)
    let connection = try PostgresConnection(uri: uri)
    let before = try Self.indexes(connection)
    var missions = Self.missions()
    // Two tracked missions of `local`: refused by the partial unique index at the insert,
    // after the other indexes were dropped.
    missions[10] = Fixtures.mission("b10", state: .active)
    missions[20] = Fixtures.mission("b20", state: .arrived)
    #expect(throws: MissionRefusal.self) { try store.insert(missions) }
    #expect(try Self.indexes(connection) == before)
    #expect(try connection.query("SELECT count(*) AS n FROM missions").int64(0, "n") == 0)
    #expect(try connection.query("SELECT count(*) AS n FROM mission_changes").int64(0, "n") == 0)
  }

  @Test func aLargeImportIntoAStoreHoldingMissionsStillNamesAStoredId() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    try store.insert([Fixtures.mission("b7")])
    do {
      try store.insert(Self.missions())
      Issue.record("an import repeating a stored id was accepted")
    } catch let error as PostgresImportError {
      #expect(error.line == 8 && error.id == "b7")
    }
    let replaced = try store.insert(Self.missions(), replacingExisting: true)
    #expect(replaced.imported == Self.count && replaced.replaced == 1)
  }

  /// A CSV large enough to be streamed in chunks (`MissionFileReader.csvPlan`: two or more),
  /// with `lines` replacing the rows at those file lines (the header is line 1).
  static func csv(rows: Int = 40_000, replacing lines: [Int: String] = [:]) -> [UInt8] {
    var text = "id,lat,lon,title\n"
    for index in 0..<rows {
      let line = index + 2
      text += lines[line] ?? "s\(index),\(59 + Double(index) / Double(rows)),18.0,t\(index)"
      text += "\n"
    }
    return Array(text.utf8)
  }

  /// Nothing of a refused import is left: no mission, no change, the indexes as they were.
  static func expectNothingStored(_ connection: PostgresConnection, indexes: [String]) throws {
    #expect(try connection.query("SELECT count(*) AS n FROM missions").int64(0, "n") == 0)
    #expect(try connection.query("SELECT count(*) AS n FROM mission_changes").int64(0, "n") == 0)
    #expect(try Self.indexes(connection) == indexes)
  }

  @Test func aStreamedCSVImportStoresWhatTheRecordsImportStores() async throws {
    let bytes = Self.csv()
    let records = try MissionFileReader.records(bytes, format: .csv, file: "m.csv")
    let streamed = try PostgresDatabase(uri: try PostgresFixture.database())
    let summary = try streamed.importMissions(bytes, format: .csv, fileName: "m.csv")
    #expect(summary == PostgresImportSummary(imported: 40_000, new: 40_000))
    let whole = try PostgresDatabase(uri: try PostgresFixture.database())
    try whole.importMissions(records)
    let stored = try streamed.missions(inState: nil)
    #expect(stored.count == 40_000)
    #expect(try whole.missions(inState: nil) == stored)
    #expect(try streamed.changes(after: 0).missions.count == 40_000)
  }

  @Test func aBadValueInTheLastChunkOfAStreamedImportStoresNothing() async throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri)
    let connection = try PostgresConnection(uri: uri)
    let before = try Self.indexes(connection)
    // A repeated id early on (line 10 repeats line 3's) and a bad latitude on the last
    // line: the bad value wins, as a pass that validates everything first decides.
    let bytes = Self.csv(replacing: [10: "s1,59,18,again", 40_001: "last,91,18,x"])
    do {
      try store.importMissions(bytes, format: .csv, fileName: "m.csv")
      Issue.record("an import with a bad last row was accepted")
    } catch let error as MissionFileError {
      guard case .invalidMissionFile(_, let line, let field, _, _) = error else {
        Issue.record("\(error)")
        return
      }
      #expect(line == 40_001 && field == "lat")
    }
    try Self.expectNothingStored(connection, indexes: before)
  }

  @Test func aRepeatedIdInAStreamedImportStoresNothing() async throws {
    let uri = try PostgresFixture.database()
    let store = try PostgresDatabase(uri: uri)
    let connection = try PostgresConnection(uri: uri)
    let before = try Self.indexes(connection)
    let bytes = Self.csv(replacing: [39_999: "s5,59,18,again"])
    do {
      try store.importMissions(bytes, format: .csv, fileName: "m.csv")
      Issue.record("an import repeating an id was accepted")
    } catch let error as MissionFileError {
      #expect(
        error
          == .invalidMissionFile(
            file: "m.csv", line: 39_999, field: "id", value: "s5",
            reason: "duplicate id (first on line 7)"))
    }
    try Self.expectNothingStored(connection, indexes: before)
  }

  @Test func aStreamedImportStillNamesTheLineOfAStoredId() async throws {
    let store = try PostgresDatabase(uri: try PostgresFixture.database())
    try store.insert([Fixtures.mission("s39000")])
    do {
      try store.importMissions(Self.csv(), format: .csv, fileName: "m.csv")
      Issue.record("an import repeating a stored id was accepted")
    } catch let error as PostgresImportError {
      #expect(error.line == 39_002 && error.id == "s39000")
    }
    #expect(try store.missions(inState: nil).count == 1)
  }
}
