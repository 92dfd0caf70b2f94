import Foundation
import MissionTracking
import Testing

@testable import MissionFiles
@testable import MissionStore

/// Mission files written to mislead: each test pins a defect of issue 14 ("Values", "Ids",
/// "Messages") that an import accepted or reported badly before.
@Suite struct HostileImportTests {
  /// The error an import of `text` as `format` fails with, or nil when it succeeds.
  private func importError(_ text: String, _ format: MissionFileFormat) throws -> StoreError? {
    let store = try MissionDatabase(path: ":memory:")
    do {
      try store.importMissions(Array(text.utf8), format: format, fileName: "m.\(format)")
      return nil
    } catch let error as StoreError {
      return error
    }
  }

  @Test func nfcAndNfdSpellingsOfAnIdAreOneMission() throws {
    let nfc = "caf\u{E9}"
    let nfd = "cafe\u{301}"
    #expect(Array(nfc.utf8) != Array(nfd.utf8))
    let store = try MissionDatabase(path: ":memory:")
    try store.importMissions(
      Array("id,lat,lon\n\(nfd),1,2\n".utf8), format: .csv, fileName: "m.csv")
    // Stored in NFC, found in either spelling.
    #expect(try store.missions().map { Array($0.id.utf8) } == [Array(nfc.utf8)])
    #expect(try store.mission(id: nfc) != nil)
    #expect(try store.mission(id: nfd) != nil)
    #expect(try store.extraProperties(ofMission: nfd) == "{}")
    // A second import in the other spelling is the same id: a duplicate, not a new mission.
    #expect(throws: StoreError.self) {
      try store.importMissions(
        Array("id,lat,lon\n\(nfc),1,2\n".utf8), format: .csv, fileName: "m.csv")
    }
    try store.importMissions(
      Array("id,lat,lon,title\n\(nfc),1,2,again\n".utf8), format: .csv, fileName: "m.csv",
      replacingExisting: true)
    #expect(try store.missionCount() == 1)
    #expect(try store.mission(id: nfd)?.title == "again")
    #expect(
      MissionID.normalized(nfd) == nfc && Array(MissionID.normalized(nfd).utf8) == Array(nfc.utf8))
  }

  @Test func insertStoresIdsInNFC() throws {
    let store = try MissionDatabase(path: ":memory:")
    let mission = Mission(
      id: "cafe\u{301}", title: "", coordinate: try Coordinate(latitude: 1, longitude: 2))
    try store.insert([mission])
    #expect(try store.missions().map { Array($0.id.utf8) } == [Array("caf\u{E9}".utf8)])
  }

  /// Mission ids follow the one id rule worker ids share (`Identifier`): a control
  /// character or more than 200 bytes of UTF-8 is a bad value, with its line.
  @Test func anIdWithAControlCharacterOrOver200BytesIsABadValue() throws {
    for (id, reason) in [
      ("a\u{1B}b", "control characters"), (String(repeating: "\u{E9}", count: 101), "200 bytes"),
    ] {
      let error = try #require(try importError("id,lat,lon\nok,1,2\n\(id),1,2\n", .csv))
      guard case .invalidMissionFile(_, 3, "id", _, let text) = error else {
        Issue.record("unexpected \(error)")
        continue
      }
      #expect(text.contains(reason))
    }
    let longest = String(repeating: "\u{E9}", count: 100)
    #expect(try importError("id,lat,lon\n\(longest),1,2\n", .csv) == nil)
  }

  /// An id with a NUL could be stored but never named in a request path: refused, in every
  /// format, with its line.
  @Test func anIdWithANULIsABadValue() throws {
    for (text, format) in [
      ("id,lat,lon\nok,1,2\nc\u{0}n,1,2\n", MissionFileFormat.csv),
      ("[{\"id\":\"ok\",\"lat\":1,\"lon\":2},\n{\"id\":\"a\\u0000b\",\"lat\":1,\"lon\":2}]", .json),
    ] {
      let error = try #require(try importError(text, format))
      guard case .invalidMissionFile(_, let line, "id", _, let reason) = error else {
        Issue.record("unexpected \(error)")
        continue
      }
      #expect(line == (format == .csv ? 3 : 2))
      #expect(reason.contains("NUL"))
    }
  }

  @Test func anImpossibleDeadlineIsABadValue() throws {
    let error = try #require(
      try importError("id,lat,lon,deadline\na,1,2,2024-02-30T12:00:00Z\n", .csv))
    guard case .invalidMissionFile(_, 2, "deadline", "2024-02-30T12:00:00Z", _) = error else {
      Issue.record("unexpected \(error)")
      return
    }
    #expect(try importError("id,lat,lon,deadline\na,1,2,2024-02-29T12:00:00Z\n", .csv) == nil)
    #expect(try importError("id,lat,lon,deadline\na,1,2,2023-02-29T12:00:00Z\n", .csv) != nil)
    #expect(try importError("id,lat,lon,deadline\na,1,2,2024-04-31T12:00:00Z\n", .csv) != nil)
  }

  @Test func aRadiusBeyondHalfTheEarthsCircumferenceIsABadValue() throws {
    let limit = Earth.halfCircumferenceMeters
    #expect(try importError("id,lat,lon,radius_m\na,1,2,\(limit)\n", .csv) == nil)
    let error = try #require(try importError("id,lat,lon,radius_m\na,1,2,20015115\n", .csv))
    guard case .invalidMissionFile(_, 2, "radius_m", "20015115", let reason) = error else {
      Issue.record("unexpected \(error)")
      return
    }
    #expect(reason.contains("half the Earth's circumference"))
    #expect(try importError(#"[{"id":"a","lat":1,"lon":2,"radius_m":1e9}]"#, .json) != nil)
  }

  @Test func aRepeatedCSVColumnIsRefusedNamingIt() throws {
    let error = try #require(try importError("id,lat,lon,lat\na,1,2,3\n", .csv))
    #expect(
      error.description
        == "m.csv:1: field 'lat': duplicate column in the header (columns 2 and 4) (nothing imported)"
    )
  }

  @Test(arguments: [
    (#"[{"id":"a","lat":1,"lon":2,"lat":3}]"#, MissionFileFormat.json, "lat"),
    (#"[{"id":"a","id":"b","lat":1,"lon":2}]"#, .json, "id"),
    (#"[{"id":"a","lat":1,"lon":2,"x":{"k":1,"k":2}}]"#, .json, "k"),
    (
      #"{"type":"Feature","geometry":{"type":"Point","coordinates":[1,2]},"geometry":null,"properties":{"id":"a"}}"#,
      .geojson, "geometry"
    ),
  ])
  func aRepeatedJSONKeyIsRefusedNamingIt(text: String, format: MissionFileFormat, key: String)
    throws
  {
    let error = try #require(try importError(text, format))
    #expect(error.description.contains("duplicate key '\(key)'"))
    #expect(!error.description.contains("\n"))
  }

  @Test func errorsFromValuesWithLineBreaksStayOnOneLine() throws {
    let error = try #require(
      try importError("id,lat,lon\na,\"1\n\u{1B}[2J\",2\n", .csv))
    #expect(!error.description.contains("\n"))
    #expect(!error.description.contains("\u{1B}"))
    #expect(error.description.contains(#"'1\n\x1B[2J'"#))
  }

  @Test func sqlInAnErrorIsOneShortLine() {
    let schema = (1...69).map { "  CREATE TABLE t\($0) (a INTEGER);" }.joined(separator: "\n")
    let text = StoreError.notADatabase(message: "file is not a database", sql: schema)
      .description
    #expect(!text.contains("\n"))
    #expect(
      text.hasPrefix(
        "not an SQLite database: file is not a database (SQL: CREATE TABLE t1 (a"))
    #expect(text.count < 160)
  }

  @Test func aDirectoryOrADeviceAsInputSaysWhatItIs() throws {
    let directory = try TemporaryDirectory()
    let store = try MissionDatabase(path: ":memory:")
    for (path, expected) in [
      (directory.url.path, "it is a directory, not a file"),
      ("/dev/null", "it is a device, not a file"),
      (directory.path("missing.csv"), "no such file"),
    ] {
      #expect {
        try store.importMissions(from: URL(fileURLWithPath: path), format: .csv)
      } throws: { error in
        guard let error = error as? StoreError, case .unreadableFile = error else { return false }
        return error.description.contains(expected) && !error.description.contains("Cocoa")
      }
    }
  }

  @Test func contentSniffingPicksTheFormat() {
    #expect(MissionFileFormat(sniffing: Array(" \n{\"type\":1}".utf8)) == .geojson)
    #expect(MissionFileFormat(sniffing: Array("\u{FEFF}[{}]".utf8)) == .json)
    #expect(MissionFileFormat(sniffing: Array("id,lat,lon\n".utf8)) == .csv)
    #expect(MissionFileFormat(fileName: "x.json", bytes: Array("{}".utf8)) == .geojson)
    #expect(MissionFileFormat(fileName: "x.txt", bytes: []) == nil)
  }
}
