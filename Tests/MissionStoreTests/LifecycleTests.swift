import Foundation
import MissionTracking
import Testing

@testable import MissionStore

@Suite struct LifecycleTests {
  /// Rows in the audit log and events table, and the mission's state: what "nothing
  /// changed" compares.
  private func snapshot(_ database: MissionDatabase, _ id: String) throws
    -> (Int, Int, MissionState?)
  {
    (
      try database.transitions(ofMission: id).count, try database.events(ofMission: id).count,
      try database.mission(id: id)?.state
    )
  }

  @Test func aLegalActionCommitsTheTransitionWithItsTimeAndEvent() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory, missions: [Fixtures.mission("m")])
    let time = Fixtures.start
    let accepted = try database.apply(.accept, toMission: "m", at: time)
    #expect(
      accepted
        == MissionTransition(
          missionID: "m", action: .accept, from: .open, to: .accepted, time: time,
          workerID: Worker.localID))
    try database.apply(.start, toMission: "m", at: time.addingTimeInterval(60))
    // A reader on its own connection sees the transition at once: it committed.
    let reader = try MissionDatabase(
      path: directory.path(), configuration: StoreConfiguration(readOnly: true))
    #expect(try reader.mission(id: "m")?.state == .active)
    let log = try reader.transitions(ofMission: "m")
    #expect(log.map(\.to) == [.accepted, .active])
    #expect(log.map(\.action) == [.accept, .start])
    #expect(abs(log[1].time.timeIntervalSince(time.addingTimeInterval(60))) < 1e-6)
    #expect(
      try reader.eventLines(ofMission: "m") == [
        accepted.event.jsonLine,
        TrackingEvent(
          time: time.addingTimeInterval(60), missionID: "m", workerID: Worker.localID,
          kind: .state(from: .accepted, to: .active)
        ).jsonLine,
      ])
  }

  @Test func anIllegalTransitionThrowsAndChangesNothing() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory, missions: [Fixtures.mission("m")])
    try database.apply(.accept, toMission: "m")
    try database.apply(.start, toMission: "m")
    try database.record(Fixtures.fixEvent(0, mission: "m"))  // pending
    let before = try snapshot(database, "m")
    #expect(
      throws: TrackingError.illegalTransition(missionID: "m", state: .active, action: .complete)
    ) {
      try database.apply(.complete, toMission: "m")
    }
    #expect(try snapshot(database, "m") == before)
    #expect(throws: StoreError.missionNotFound("ghost")) {
      try database.apply(.accept, toMission: "ghost")
    }
  }

  @Test func idempotentActionsRecordNothing() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .accepted)])
    try database.apply(.start, toMission: "m")
    let again = try database.apply(.start, toMission: "m")
    #expect(again.from == again.to && again.to == .active)
    #expect(try database.transitions(ofMission: "m").count == 1)
  }

  @Test func randomActionSequencesFollowTheTransitionTable() throws {
    let directory = try TemporaryDirectory()
    let ids = ["a", "b", "c", "d"]
    var database = try Fixtures.database(
      in: directory, missions: ids.map { Fixtures.mission($0) })
    var model = Dictionary(uniqueKeysWithValues: ids.map { ($0, MissionState.open) })
    var changes = Dictionary(uniqueKeysWithValues: ids.map { ($0, 0) })
    var generator = SplitMix64(seed: 42)
    for step in 0..<400 {
      let id = ids.randomElement(using: &generator)!
      let action = MissionAction.allCases.randomElement(using: &generator)!
      let time = Fixtures.start.addingTimeInterval(Double(step))
      if let target = action.target(from: model[id]!) {
        let transition = try database.apply(action, toMission: id, at: time)
        #expect(transition.from == model[id]! && transition.to == target)
        if target != model[id]! { changes[id]! += 1 }
        model[id] = target
      } else {
        #expect(
          throws: TrackingError.illegalTransition(missionID: id, state: model[id]!, action: action)
        ) {
          try database.apply(action, toMission: id, at: time)
        }
      }
      if step % 100 == 99 {  // the state machine lives in the file, not in memory
        try database.close()
        database = try MissionDatabase(path: directory.path())
      }
    }
    for id in ids {
      #expect(try database.mission(id: id)?.state == model[id])
      #expect(try database.transitions(ofMission: id).count == changes[id])
    }
  }
}

@Suite struct IdentifierSpellingTests {
  @Test func theStoresLookupsTakeEitherSpellingOfAnId() throws {
    let directory = try TemporaryDirectory()
    let nfc = "caf\u{E9}"
    let nfd = "cafe\u{301}"
    let database = try Fixtures.database(in: directory, missions: [Fixtures.mission(nfc)])
    #expect(try database.apply(.accept, toMission: nfd).to == .accepted)
    #expect(try database.transitions(ofMission: nfd).count == 1)
    #expect(try database.events(ofMission: nfd).count == 1)
    #expect(try database.track(ofMission: nfd).isEmpty)
    #expect(try database.mission(id: nfd)?.id == nfc)
  }
}

@Suite struct ChangeFeedTests {
  @Test func anotherConnectionsImportsAndTransitionsAreInTheFeedOnce() throws {
    let directory = try TemporaryDirectory()
    let tracker = try Fixtures.database(in: directory, missions: [Fixtures.mission("a")])
    let all = try tracker.changes(after: nil)
    #expect(all.missions.map(\.id) == ["a"])
    // Nothing changed: the answer comes without a query, with the same token.
    #expect(try tracker.changes(after: all.token) == MissionChanges(token: all.token, missions: []))
    let other = try MissionDatabase(path: directory.path())
    try other.insert([Fixtures.mission("b"), Fixtures.mission("c")])
    try other.apply(.accept, toMission: "a")
    let changed = try tracker.changes(after: all.token)
    #expect(changed.missions.map(\.id).sorted() == ["a", "b", "c"])
    #expect(changed.missions.first { $0.id == "a" }?.state == .accepted)
    #expect(changed.token > all.token)
    try other.apply(.accept, toMission: "b")
    let next = try tracker.changes(after: changed.token)
    #expect(next.missions.map(\.id) == ["b"])
  }

  /// `PRAGMA data_version` ignores a connection's own commits: an import or removal through
  /// the tracker's own connection (what `serve` does) must still reach its feed.
  @Test func theSameConnectionsImportsAndRemovalsAreInTheFeed() throws {
    let directory = try TemporaryDirectory()
    let tracker = try Fixtures.database(in: directory, missions: [Fixtures.mission("a")])
    let all = try tracker.changes(after: nil)
    try tracker.importMissions(
      Array("id,lat,lon\nb,1,2\n".utf8), format: .csv, fileName: "body",
      replacingExisting: false)
    let imported = try tracker.changes(after: all.token)
    #expect(imported.missions.map(\.id) == ["b"])
    #expect(try tracker.removeMission(id: "a"))
    let removed = try tracker.changes(after: imported.token)
    #expect(removed.removedIDs == ["a"])
    #expect(try tracker.changes(after: removed.token).missions.isEmpty)
  }

  /// Removing the mission with the newest events does not hand their numbers to the next
  /// events: a stream reader that saw them (`Last-Event-ID`) would skip the new ones.
  @Test func eventNumbersAreNeverReusedAfterARemoval() throws {
    let directory = try TemporaryDirectory()
    let store = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("a"), Fixtures.mission("b")])
    try store.apply(.accept, toMission: "a")
    try store.apply(.cancel, toMission: "a")
    let newest = try store.lastEventSequence()
    #expect(newest > 0)
    #expect(try store.removeMission(id: "a"))
    try store.apply(.accept, toMission: "b")
    #expect(try store.lastEventSequence() == newest + 1)
    // Also after the file is opened again (the number is kept in the file, not in memory).
    try store.close()
    let reopened = try MissionDatabase(path: directory.path())
    try reopened.apply(.cancel, toMission: "b")
    #expect(try reopened.lastEventSequence() == newest + 2)
  }
}
