import Foundation
import MissionTracking
import Testing

/// The `TrackingStore` contract, one suite over every store: the in-memory one, SQLite and
/// PostgreSQL (a private cluster the tests start).
@Suite struct TrackingStoreContractTests {
  @Test(arguments: StoreKind.available)
  func commitIsCompareAndSetOnTheStoredState(_ kind: StoreKind) async throws {
    let fixture = try await ContractStore.make(kind, missions: [Fixtures.mission("m1")])
    let store = fixture.store
    let accept = Fixtures.transition("m1", .accept, .open, .accepted)
    try await store.commit(accept)
    // The same transition again: the stored state is no longer `open`.
    await #expect(throws: TrackingError.changedElsewhere(missionID: "m1", state: .accepted)) {
      try await store.commit(accept)
    }
    // An unknown mission is refused (the error type is the store's own).
    await #expect(throws: (any Error).self) {
      try await store.commit(Fixtures.transition("nope", .accept, .open, .accepted))
    }
    let changes = try await store.changes(after: nil)
    #expect(changes.missions.first { $0.id == "m1" }?.state == .accepted)
  }

  @Test(arguments: StoreKind.withWorkers)
  func oneTrackedMissionPerWorker(_ kind: StoreKind) async throws {
    let fixture = try await ContractStore.make(
      kind,
      missions: [
        Fixtures.mission("m1"), Fixtures.mission("m2"), Fixtures.mission("m3"),
      ])
    try await fixture.addWorker("w2")
    let store = fixture.store
    try await store.commit(Fixtures.transition("m1", .accept, .open, .accepted))
    try await store.commit(Fixtures.transition("m1", .start, .accepted, .active))
    try await store.commit(Fixtures.transition("m2", .accept, .open, .accepted))
    await #expect(
      throws: TrackingError.workerBusy(workerID: "local", tracked: "m1", requested: "m2")
    ) {
      try await store.commit(Fixtures.transition("m2", .start, .accepted, .active))
    }
    // Another worker's start is not refused.
    try await store.commit(Fixtures.transition("m3", .accept, .open, .accepted, worker: "w2"))
    try await store.commit(Fixtures.transition("m3", .start, .accepted, .active, worker: "w2"))
    let states = Dictionary(
      uniqueKeysWithValues: try await store.changes(after: nil).missions.map { ($0.id, $0.state) })
    #expect(states == ["m1": .active, "m2": .accepted, "m3": .active])
    // Once m1 is submitted, m2 may start.
    try await store.commit(Fixtures.transition("m1", .submit, .active, .submitted))
    try await store.commit(Fixtures.transition("m2", .start, .accepted, .active))
  }

  @Test(arguments: StoreKind.available)
  func recordedBatchesResumeWhereTheyEnded(_ kind: StoreKind) async throws {
    let fixture = try await ContractStore.make(kind, missions: [Fixtures.mission("m1")])
    let store = fixture.store
    #expect(try await store.resumePoint(ofMission: "m1") == nil)
    try await store.commit(Fixtures.transition("m1", .accept, .open, .accepted))
    try await store.commit(Fixtures.transition("m1", .start, .accepted, .active))
    let since = Fixtures.fix(3).time
    let fence = FenceState(isInside: true, insideSince: since, dwellReported: false)
    try await store.record(
      TrackingBatch(
        missionID: "m1",
        events: (0..<5).map { Fixtures.fixEvent($0, mission: "m1") } + [
          TrackingEvent(
            time: since, missionID: "m1", workerID: Worker.localID,
            kind: .enter(fenceID: "m1", distanceMeters: 20, initial: false))
        ],
        fenceStates: ["m1": fence], travelledMeters: 44))
    try await store.flush()
    let resume = try #require(try await store.resumePoint(ofMission: "m1"))
    #expect(resume.lastDelivered == Fixtures.fix(4))
    #expect(resume.fenceStates == ["m1": fence])
    #expect(resume.travelledMeters == 44)

    // Another writer stops the mission: what this one records after is refused.
    try await store.commit(Fixtures.transition("m1", .cancel, .active, .cancelled))
    await #expect(throws: TrackingError.changedElsewhere(missionID: "m1", state: .cancelled)) {
      try await store.record(
        TrackingBatch(
          missionID: "m1", events: [Fixtures.fixEvent(5, mission: "m1")], fenceStates: [:],
          travelledMeters: 55))
      try await store.flush()
    }
    #expect(try await store.resumePoint(ofMission: "m1")?.lastDelivered == Fixtures.fix(4))
  }

  /// The start time is the store's, so an engine that did not make the start (another
  /// process, or before a restart) still knows it.
  @Test(arguments: StoreKind.available)
  func theTrackingStartIsTheLatestTransitionToActive(_ kind: StoreKind) async throws {
    let fixture = try await ContractStore.make(
      kind, missions: [Fixtures.mission("m1"), Fixtures.mission("m2")])
    let store = fixture.store
    let accepted = Fixtures.start.addingTimeInterval(60)
    let started = Fixtures.start.addingTimeInterval(600.25)
    #expect(try await store.trackingStart(ofMission: "m1") == nil)
    try await store.commit(Fixtures.transition("m1", .accept, .open, .accepted, at: accepted))
    #expect(try await store.trackingStart(ofMission: "m1") == nil)
    try await store.commit(Fixtures.transition("m1", .start, .accepted, .active, at: started))
    try await store.commit(Fixtures.transition("m2", .accept, .open, .accepted))
    #expect(try await store.trackingStart(ofMission: "m1") == started)
    #expect(try await store.trackingStart(ofMission: "m2") == nil)
    #expect(try await store.trackingStart(ofMission: "nope") == nil)
  }

  @Test(arguments: StoreKind.available)
  func changesAfterATokenIncludeAnotherConnectionsWrites(_ kind: StoreKind) async throws {
    let fixture = try await ContractStore.make(
      kind, missions: [Fixtures.mission("m1"), Fixtures.mission("m2")])
    let store = fixture.store
    let all = try await store.changes(after: nil)
    #expect(all.missions.map(\.id).sorted() == ["m1", "m2"])
    #expect(try await store.changes(after: all.token).missions.isEmpty)

    try await fixture.writeElsewhere([Fixtures.mission("m9", lat: 59.5)])
    try await store.commit(Fixtures.transition("m2", .accept, .open, .accepted))
    let later = try await store.changes(after: all.token)
    #expect(later.token > all.token)
    #expect(later.missions.map(\.id).sorted() == ["m2", "m9"])
    #expect(later.missions.first { $0.id == "m9" }?.coordinate.latitude == 59.5)
    #expect(later.missions.first { $0.id == "m2" }?.state == .accepted)
    #expect(try await store.changes(after: later.token).missions.isEmpty)
  }

  @Test(arguments: StoreKind.withWorkers)
  func watchesAreSavedReplacedAndRemoved(_ kind: StoreKind) async throws {
    let store = try await ContractStore.make(kind, missions: [Fixtures.mission("m1")]).store
    let near = Watch(
      id: "w-near", coordinate: Coordinate(uncheckedLatitude: 59.33, longitude: 18.07),
      radiusMeters: 500, workerID: "local")
    let any = Watch(
      id: "w-any", coordinate: Coordinate(uncheckedLatitude: -33.9, longitude: 151.2),
      radiusMeters: 0, state: nil)
    try await store.saveWatch(near)
    try await store.saveWatch(any)
    #expect(try await store.watches() == [any, near])
    var moved = near
    moved.radiusMeters = 1500
    moved.state = .accepted
    try await store.saveWatch(moved)
    #expect(try await store.watches() == [any, moved])
    #expect(try await store.removeWatch(id: "w-any"))
    #expect(try await store.removeWatch(id: "w-any") == false)
    #expect(try await store.watches() == [moved])

    try await store.recordEvents([
      TrackingEvent(
        time: Fixtures.start, missionID: "m1", workerID: "local",
        kind: .nearby(watchID: "w-near", distanceMeters: 120))
    ])
  }
}
