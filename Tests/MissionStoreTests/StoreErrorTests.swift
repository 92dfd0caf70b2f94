import Foundation
import MissionTracking
import Testing

@testable import MissionStore

/// SQLite's result codes become typed `StoreError` cases in one place, and the store alone
/// decides "at most one tracked mission", in the transaction that writes.
@Suite struct StoreErrorTests {
  @Test func aLockHeldByAnotherConnectionIsBusy() throws {
    let directory = try TemporaryDirectory()
    let holder = try Fixtures.database(in: directory, missions: [Fixtures.mission("a")])
    let waiter = try MissionDatabase(
      path: directory.path(), configuration: StoreConfiguration(busyTimeoutMilliseconds: 50))
    try holder.withConnection { try $0.execute("BEGIN IMMEDIATE") }
    defer { _ = try? holder.withConnection { try $0.execute("ROLLBACK") } }
    #expect {
      try waiter.apply(.accept, toMission: "a")
    } throws: { error in
      guard case StoreError.busy(_, let sql) = error else { return false }
      return sql == "BEGIN IMMEDIATE"
    }
  }

  @Test func aWriteThroughAReadOnlyOpenIsReadOnly() throws {
    let directory = try TemporaryDirectory()
    try Fixtures.database(in: directory, missions: [Fixtures.mission("a")]).close()
    let reader = try MissionDatabase(
      path: directory.path(), configuration: StoreConfiguration(readOnly: true))
    #expect {
      try reader.apply(.accept, toMission: "a")
    } throws: { error in
      if case StoreError.readOnly = error { return true }
      return false
    }
  }

  @Test func aStoredPrimaryKeyIsAPrimaryKeyConstraint() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory, missions: [Fixtures.mission("a")])
    #expect {
      try database.withConnection { connection in
        try connection.execute(
          "INSERT INTO missions (id, lat, lon, radius_m, updated_us) VALUES ('a', 0, 0, 1, 0)")
      }
    } throws: { error in
      guard case StoreError.constraint(.primaryKey, let message, let sql) = error else {
        return false
      }
      return message.contains("missions.id") && sql.hasPrefix("INSERT INTO missions")
    }
  }

  @Test func startingASecondMissionNamesTheTrackedOne() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("a"), Fixtures.mission("b")])
    try database.apply(.accept, toMission: "a")
    try database.apply(.start, toMission: "a")
    try database.apply(.accept, toMission: "b")
    #expect(
      throws: TrackingError.workerBusy(workerID: "local", tracked: "a", requested: "b")
    ) {
      try database.apply(.start, toMission: "b")
    }
    #expect(try database.mission(id: "b")?.state == .accepted)
    // Replacing a mission with a tracked state is the same refusal.
    #expect(
      throws: StoreError.secondTrackedMission(
        worker: "local", holder: "a", requested: "b", state: .arrived, file: "body", line: 2)
    ) {
      try database.importMissions(
        Array("id,lat,lon,state\nb,1,2,arrived\n".utf8), format: .csv, fileName: "body",
        replacingExisting: true)
    }
  }

  /// Issue 24 #1: the removal is decided in its own transaction, on the stored state, so a
  /// mission another process started a moment ago is never removed.
  @Test func removingAMissionAnotherConnectionStartedIsRefused() throws {
    let directory = try TemporaryDirectory()
    let service = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("a"), Fixtures.mission("b")])
    #expect(try service.mission(id: "a")?.state == .open)
    // Another process (its own connection): `missions accept` and `missions start`.
    let shell = try MissionDatabase(path: directory.path())
    try shell.apply(.accept, toMission: "a")
    try shell.apply(.start, toMission: "a")
    try shell.close()
    #expect(throws: StoreError.trackedMissionRemoval(id: "a", state: .active)) {
      try service.removeMission(id: "a")
    }
    #expect(try service.mission(id: "a")?.state == .active)
    #expect(try service.transitions(ofMission: "a").map(\.action) == [.accept, .start])
    // An untracked one goes, with its history.
    try service.apply(.cancel, toMission: "b")
    #expect(try service.removeMission(id: "b"))
    #expect(try service.mission(id: "b") == nil)
  }
}
