import Foundation
import MissionTracking
import Testing

@testable import MissionFiles
@testable import MissionStore

/// Large imports (multi-row statements, indexes rebuilt at the end) keep the rules of small
/// ones: all or nothing, and a refused row is named by its line.
@Suite struct BulkImportTests {
  /// A CSV of `count` open missions `b0`, `b1`, … spread over the globe; `row` can replace
  /// the text of a record (0-based) after the header.
  static func csv(count: Int, row: (Int) -> String? = { _ in nil }) -> [UInt8] {
    var text = "id,lat,lon,state,title\n"
    for index in 0..<count {
      if let replacement = row(index) {
        text += replacement + "\n"
        continue
      }
      let lat = Double((index * 7919) % 17_000) / 100 - 85
      let lon = Double((index * 104_729) % 35_900) / 100 - 179.5
      text += "b\(index),\(lat),\(lon),open,Mission \(index)\n"
    }
    return Array(text.utf8)
  }

  static func indexNames(_ database: MissionDatabase) throws -> Set<String> {
    try database.withConnection { connection in
      Set(
        try connection.strings(
          "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'missions'"))
    }
  }

  @Test func aLargeImportStoresEveryRowAndKeepsTheIndexes() throws {
    let database = try MissionDatabase(path: ":memory:")
    let before = try Self.indexNames(database)
    let count = MissionDatabase.bulkLoadMinimum + 1234
    let summary = try database.importMissions(
      Self.csv(count: count), format: .csv, fileName: "big.csv")
    #expect(summary.missionIDs.count == count)
    #expect(try database.missionCount() == count)
    #expect(try Self.indexNames(database) == before)
    #expect(before.isSuperset(of: MissionDatabase.rebuiltIndexes))
    #expect(try database.integrityCheck() == ["ok"])
    // Every row has its change-feed entry, and the index answers like the grid.
    let changes = try database.changes(after: 0)
    #expect(changes.missions.count == count)
    let center = try Coordinate(latitude: 10, longitude: 20)
    #expect(
      try database.nearbyMissions(of: center, limit: 50)
        == (try database.proximityIndex().nearest(50, to: center)))
    let mission = try database.mission(id: "b77")
    #expect(mission?.title == "Mission 77")
  }

  @Test func aRowTheSchemaRefusesFailsALargeImportWithItsLine() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.insert([Mission(id: "keep", coordinate: try Coordinate(latitude: 1, longitude: 2))]
    )
    let count = MissionDatabase.bulkLoadMinimum + 100
    // Two missions in a tracking state: the second is refused by the unique index.
    let bytes = Self.csv(count: count) { index in
      switch index {
      case 4000: "t1,1,1,active,first"
      case 9001: "t2,2,2,arrived,second"
      default: nil
      }
    }
    do {
      try database.importMissions(bytes, format: .csv, fileName: "big.csv")
      Issue.record("the import should fail")
    } catch let error as StoreError {
      // Header, then 0-based record 9001 on line 9003.
      #expect(
        error
          == .secondTrackedMission(
            worker: "local", holder: "t1", requested: "t2", state: .arrived, file: "big.csv",
            line: 9003),
        "\(error)")
    }
    // Nothing of it stayed, and the indexes are back.
    #expect(try database.missionCount() == 1)
    #expect(try Self.indexNames(database).isSuperset(of: MissionDatabase.rebuiltIndexes))
    #expect(try database.integrityCheck() == ["ok"])
  }

  @Test func aStoredIdFailsALargeImportWithItsLine() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.insert([
      Mission(id: "b12345", coordinate: try Coordinate(latitude: 1, longitude: 2))
    ])
    let count = MissionDatabase.bulkLoadMinimum + 5000
    do {
      try database.importMissions(Self.csv(count: count), format: .csv, fileName: "big.csv")
      Issue.record("the import should fail")
    } catch StoreError.invalidMissionFile(_, let line, let field, let value, let reason) {
      #expect(line == 12347)
      #expect(field == "id")
      #expect(value == "b12345")
      #expect(reason.contains("already stored"))
    }
    #expect(try database.missionCount() == 1)
  }

  @Test func aLargeInsertRefusesADuplicateAndStoresNothing() throws {
    let database = try MissionDatabase(path: ":memory:")
    var missions = (0..<(MissionDatabase.bulkLoadMinimum + 10)).map {
      Mission(id: "i\($0)", coordinate: Coordinate(uncheckedLatitude: 0, longitude: 0))
    }
    missions.append(missions[5000])
    #expect(throws: StoreError.duplicateMission("i5000")) { try database.insert(missions) }
    #expect(try database.missionCount() == 0)
    try database.insert(missions.dropLast())
    #expect(try database.missionCount() == missions.count - 1)
  }

  @Test func aLargeReplacingImportUpdatesInPlace() throws {
    let database = try MissionDatabase(path: ":memory:")
    let count = MissionDatabase.bulkLoadMinimum + 10
    try database.importMissions(Self.csv(count: count), format: .csv, fileName: "a.csv")
    let moved = Self.csv(count: count) { index in
      index == 3 ? "b3,45,45,open,moved" : nil
    }
    let summary = try database.importMissions(
      moved, format: .csv, fileName: "b.csv", replacingExisting: true)
    #expect(summary.replacedCount == count)
    #expect(try database.mission(id: "b3")?.title == "moved")
    #expect(
      try database.nearbyMissions(within: 0, of: try Coordinate(latitude: 45, longitude: 45))
        .map(\.id) == ["b3"])
  }
  /// Rows enough for the pipelined import (validation chunks stored while later ones are
  /// checked).
  static let pipelined = 2 * MissionFileReader.csvChunkRows + 500

  /// `interrupt()` reaches an import still splitting and validating its file, where SQLite
  /// has no statement running to stop: it fails as an interrupted statement would, before
  /// any row is stored.
  @Test func anInterruptWhileTheFileIsReadStopsTheImportBeforeItStores() throws {
    let database = try MissionDatabase(path: ":memory:")
    let bytes = Self.csv(count: 8 * MissionFileReader.csvChunkRows)
    // Interrupts every millisecond, as a stopping server does, until the import has ended.
    let finished = DispatchSemaphore(value: 0)
    let ended = DispatchSemaphore(value: 0)
    Thread {
      while finished.wait(timeout: .now() + .milliseconds(1)) == .timedOut { database.interrupt() }
      ended.signal()
    }.start()
    var interrupting = true
    func stopInterrupting() {
      guard interrupting else { return }
      interrupting = false
      finished.signal()
      ended.wait()
    }
    defer { stopInterrupting() }
    do {
      try database.importMissions(bytes, format: .csv, fileName: "big.csv")
      Issue.record("the import ended although interrupted")
    } catch StoreError.interrupted(let message, let sql) {
      // Stopped while reading, not by a statement of the store (which names its SQL).
      #expect(sql.isEmpty, "stopped by \(sql)")
      #expect(message == "interrupted while reading big.csv")
    }
    // Not interrupted itself: the count is read once the interrupting has stopped.
    stopInterrupting()
    #expect(try database.missionCount() == 0)
  }

  @Test func aPipelinedImportStoresEveryRowInFileOrder() throws {
    let database = try MissionDatabase(path: ":memory:")
    let bytes = Self.csv(count: Self.pipelined)
    #expect(try MissionFileReader.csvPlan(bytes, file: "big.csv").chunks > 1)
    let summary = try database.importMissions(bytes, format: .csv, fileName: "big.csv")
    #expect(summary.missionIDs == (0..<Self.pipelined).map { "b\($0)" })
    #expect(try database.missionCount() == Self.pipelined)
    #expect(try database.changes(after: 0).missions.count == Self.pipelined)
    #expect(try database.integrityCheck() == ["ok"])
  }

  /// Whatever the order the chunks finish in, the error is the one a validate-first pass
  /// gives: a bad value beats a duplicate in the file, which beats a refusal by the store.
  @Test func aPipelinedImportReportsTheErrorsInTheirOrderOfPrecedence() throws {
    let database = try MissionDatabase(path: ":memory:")
    try database.insert([
      Mission(id: "b10", coordinate: try Coordinate(latitude: 1, longitude: 2))
    ])
    let last = Self.pipelined - 1
    func failure(_ row: @escaping (Int) -> String?) throws -> (Int, String?, String) {
      do {
        try database.importMissions(
          Self.csv(count: Self.pipelined, row: row), format: .csv, fileName: "big.csv")
      } catch StoreError.invalidMissionFile(_, let line, let field, _, let reason) {
        return (line, field, reason)
      }
      Issue.record("the import should fail")
      return (0, nil, "")
    }
    // A stored id (row 10) and a bad latitude at the very end: the latitude.
    let badValue = try failure { $0 == last ? "x,91,0,open,t" : nil }
    #expect(badValue.0 == last + 2)
    #expect(badValue.1 == "lat")
    // A stored id (row 10) and a duplicate of row 5 at the end: the duplicate.
    let duplicate = try failure { $0 == last ? "b5,1,1,open,t" : nil }
    #expect(duplicate.0 == last + 2)
    #expect(duplicate.2.contains("first on line 7"))
    // Only the stored id: the store's refusal, with its line.
    let stored = try failure { _ in nil }
    #expect(stored.0 == 12)
    #expect(stored.2.contains("already stored"))
    #expect(try database.missionCount() == 1)
    #expect(try database.integrityCheck() == ["ok"])
  }
}
