import Foundation
import MissionTracking
import Testing
import TextRules

@testable import MissionStore

@Suite struct ImportTests {
  private func database(_ directory: TemporaryDirectory) throws -> MissionDatabase {
    try Fixtures.database(in: directory)
  }

  /// Expects an invalid-file error on `line` (and `field`, when given).
  private func expectBadFile(
    line: Int, field: String? = nil, _ body: () throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(sourceLocation: sourceLocation) {
      try body()
    } throws: { error in
      guard case StoreError.invalidMissionFile(_, let l, let f, _, _) = error else { return false }
      return l == line && (field == nil || f == field)
    }
  }

  @Test func csvWithQuotesNumericIdsDefaultsAndUnknownFieldsImports() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    let csv = #"""
      id,lat,lon,title,reward,currency,address,radius_m,deadline,state,colour\#r
      12,59.3293,18.0686,"Photograph the shop front, twice",350,sek,"Storgatan 12
      Stockholm",80,2026-12-01T10:00:00+01:00,accepted,red\#r
      abc,-33.9,151.2,"Say ""hello""",,,,,,,\#r

      """#
    let summary = try store.importMissions(from: try directory.write(csv, to: "m.csv"))
    #expect(summary == ImportSummary(format: .csv, missionIDs: ["12", "abc"], replacedCount: 0))
    let first = try #require(try store.mission(id: "12"))
    #expect(first.title == "Photograph the shop front, twice")
    #expect(first.address == "Storgatan 12\nStockholm")
    #expect(first.reward == "350" && first.currency == "SEK")
    #expect(first.geofenceRadiusMeters == 80 && first.state == .accepted)
    #expect(first.deadline == UTCTime.parse("2026-12-01T09:00:00Z")!.date)
    #expect(try store.extraProperties(ofMission: "12") == #"{"colour":"red"}"#)
    let second = try #require(try store.mission(id: "abc"))
    #expect(second.title == "Say \"hello\"")
    #expect(second.geofenceRadiusMeters == 50 && second.state == .open && second.reward == nil)
    #expect(try store.extraProperties(ofMission: "abc") == "{}")
  }

  @Test func aJSONArrayImportsWithNumbersKeptAsTheirText() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    let json = """
      [
        {"id": 7, "lat": 59.33, "lon": 18.07, "reward": 120.50, "tags": ["a", {"b": 1}]},
        {"id": "x", "lat": "10.5", "lon": -20, "title": "caf\\u00e9 \\ud83d\\ude00", "state": null}
      ]
      """
    try store.importMissions(from: try directory.write(json, to: "m.json"))
    let seven = try #require(try store.mission(id: "7"))
    #expect(seven.reward == "120.50")
    #expect(try store.extraProperties(ofMission: "7") == #"{"tags":["a", {"b": 1}]}"#)
    let x = try #require(try store.mission(id: "x"))
    #expect(x.title == "café 😀" && x.state == .open)
    #expect(x.coordinate == (try Coordinate(latitude: 10.5, longitude: -20)))
  }

  @Test func geoJSONPointsImportLongitudeFirst() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    let geojson = """
      {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [18.0686, 59.3293]},
         "properties": {"id": "sthlm", "title": "Shop", "radius_m": 30}},
        {"type": "Feature", "id": 99, "geometry": {"type": "Point", "coordinates": [-0.1276, 51.5072, 11]},
         "properties": {"deadline": "2026-06-01T00:00:00Z", "note": null}}
      ]}
      """
    let summary = try store.importMissions(from: try directory.write(geojson, to: "m.geojson"))
    #expect(summary.format == .geojson && summary.missionIDs == ["sthlm", "99"])
    let sthlm = try #require(try store.mission(id: "sthlm"))
    #expect(sthlm.coordinate.latitude == 59.3293 && sthlm.coordinate.longitude == 18.0686)
    #expect(sthlm.geofenceRadiusMeters == 30)
    #expect(try store.mission(id: "99")?.deadline != nil)
    // A .json file holding a FeatureCollection is read as GeoJSON too.
    let other = try TemporaryDirectory()
    #expect(
      try database(other).importMissions(from: try other.write(geojson, to: "m.json")).format
        == .geojson)
  }

  @Test func aBadCSVRowNamesItsLineAndImportsNothing() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    let csv = """
      id,lat,lon,title
      a,59.3,18.0,"multi
      line title"
      b,91,18.0,too far north
      """
    expectBadFile(line: 4, field: "lat") {
      try store.importMissions(from: try directory.write(csv, to: "bad.csv"))
    }
    #expect(try store.missionCount() == 0)
  }

  @Test(
    arguments: [
      ("id,lat,lon\n1,2,3\n1,4,5\n", 3, "id"),  // duplicate id
      ("id,lat,lon\n1,2\n", 2, nil),  // wrong field count
      ("id,lat,lon\n,2,3\n", 2, "id"),  // missing id
      ("id,lat,lon\n1,abc,3\n", 2, "lat"),
      ("id,lat,lon\n1,2,181\n", 2, "lon"),
      ("id,lat,lon,radius_m\n1,2,3,0\n", 2, "radius_m"),
      ("id,lat,lon,deadline\n1,2,3,2026-01-01T00:00:00\n", 2, "deadline"),  // no zone
      ("id,lat,lon,deadline\n1,2,3,tomorrow\n", 2, "deadline"),
      ("id,lat,lon,state\n1,2,3,sleeping\n", 2, "state"),
      ("id,lat,lon,reward\n1,2,3,lots\n", 2, "reward"),
      ("id,lat,lon,currency\n1,2,3,kronor\n", 2, "currency"),
      ("id,lat\n1,2\n", 1, "lon"),  // header without lon
      ("id,lat,lon\n1,2,3\n\"2,4,5\n", 3, nil),  // unterminated quote
      ("id,lat,lon\n1,2\"x\",3\n", 2, nil),  // stray quote
    ] as [(String, Int, String?)])
  func badCSVValuesAreReportedWithTheirLine(csv: String, line: Int, field: String?) throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    expectBadFile(line: line, field: field) {
      try store.importMissions(Array(csv.utf8), format: .csv, fileName: "t.csv")
    }
    #expect(try store.missionCount() == 0)
  }

  @Test func aBadJSONElementNamesTheLineOfItsValue() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    let json = """
      [
        {"id": "a", "lat": 1, "lon": 2},
        {"id": "b",
         "lat": 1,
         "lon": "east"}
      ]
      """
    expectBadFile(line: 5, field: "lon") {
      try store.importMissions(Array(json.utf8), format: .json, fileName: "t.json")
    }
    expectBadFile(line: 3) {
      try store.importMissions(
        Array("[\n{\"id\": 1, \"lat\": 1, \"lon\": 1},\n\"x\"]".utf8), format: .json,
        fileName: "t.json")
    }
    expectBadFile(line: 2) {  // syntax error
      try store.importMissions(Array("[\n{\"id\": 1,,}]".utf8), format: .json, fileName: "t.json")
    }
    #expect(try store.missionCount() == 0)
  }

  @Test func aBadGeoJSONFeatureNamesItsLine() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    let geojson = """
      {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [18, 59]}, "properties": {"id": "ok"}},
        {"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[18, 59], [18, 60]]},
         "properties": {"id": "line"}}
      ]}
      """
    expectBadFile(line: 3) {
      try store.importMissions(Array(geojson.utf8), format: .geojson, fileName: "t.geojson")
    }
    let swapped = """
      {"type": "FeatureCollection", "features": [
        {"type": "Feature", "geometry": {"type": "Point", "coordinates": [59, 100]}, "properties": {"id": "x"}}
      ]}
      """
    expectBadFile(line: 2, field: "coordinates") {
      try store.importMissions(Array(swapped.utf8), format: .geojson, fileName: "t.geojson")
    }
    #expect(try store.missionCount() == 0)
  }

  @Test func anAlreadyStoredIdFailsTheImportUnlessReplacing() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    try store.insert([Fixtures.mission("b", state: .active)])
    let csv = Array("id,lat,lon,title\na,1,2,new\nb,3,4,changed\n".utf8)
    expectBadFile(line: 3, field: "id") {
      try store.importMissions(csv, format: .csv, fileName: "t.csv")
    }
    #expect(try store.mission(id: "a") == nil)
    // A failed import does not leave the rolled-back id in the recorder's cache.
    #expect(throws: StoreError.missionNotFound("a")) {
      try store.record(Fixtures.fixEvent(0, mission: "a"))
    }
    // A tracked mission is the engine's until it is submitted or cancelled: replacing it
    // (here to the default state, open) would end its tracking behind the engine's back.
    #expect(throws: StoreError.missionTracked("b")) {
      try store.importMissions(csv, format: .csv, fileName: "t.csv", replacingExisting: true)
    }
    #expect(try store.mission(id: "a") == nil)
    #expect(try store.mission(id: "b")?.state == .active)
    try store.insert([Fixtures.mission("c")])
    let summary = try store.importMissions(
      Array("id,lat,lon,title\na,1,2,new\nc,3,4,changed\n".utf8), format: .csv,
      fileName: "t.csv", replacingExisting: true)
    #expect(summary.replacedCount == 1)
    #expect(try store.mission(id: "c")?.title == "changed")
  }

  @Test func aSecondTrackedMissionFailsTheImportNamingTheFirst() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    /// Expects `rows` to be refused on line 3 (its second row, `requested` in `state`),
    /// naming `held`.
    func expectRefused(_ rows: String, requested: String, state: MissionState, held: String) {
      #expect(
        throws: StoreError.secondTrackedMission(
          worker: "local", holder: held, requested: requested, state: state, file: "t.csv", line: 3)
      ) {
        try store.importMissions(
          Array("id,lat,lon,state\n\(rows)".utf8), format: .csv, fileName: "t.csv")
      }
    }
    expectRefused("a,1,2,active\nb,3,4,arrived\n", requested: "b", state: .arrived, held: "a")
    #expect(try store.missionCount() == 0)
    // One already stored. (`BulkImportTests` has both in a file large enough to be stored
    // while it is validated.)
    try store.insert([Fixtures.mission("held", state: .active)])
    expectRefused("a,1,2,open\nb,3,4,active\n", requested: "b", state: .active, held: "held")
    #expect(try store.missionCount() == 1)
    // The tracked mission itself again: its id is taken, not a second tracked mission.
    expectBadFile(line: 2, field: "id") {
      try store.importMissions(
        Array("id,lat,lon,state\nheld,1,2,arrived\n".utf8), format: .csv, fileName: "t.csv")
    }
  }

  @Test func anUnknownExtensionOrMissingFileIsAClearError() throws {
    let directory = try TemporaryDirectory()
    let store = try database(directory)
    #expect {
      try store.importMissions(from: try directory.write("id,lat,lon\n", to: "m.txt"))
    } throws: { error in
      if case StoreError.unreadableFile = error { return true }
      return false
    }
    #expect {
      try store.importMissions(from: directory.url.appendingPathComponent("missing.csv"))
    } throws: { error in
      if case StoreError.unreadableFile = error { return true }
      return false
    }
  }

  @Test func errorMessagesNameFileLineFieldAndValue() {
    let error = StoreError.invalidMissionFile(
      file: "m.csv", line: 4, field: "lat", value: "91", reason: "must be in [-90, 90]")
    #expect(
      error.description == "m.csv:4: field 'lat' = '91': must be in [-90, 90] (nothing imported)")
  }
}
