import Foundation
import MissionTracking
import Testing

@testable import MissionStore

@Suite struct RecordingTests {
  private let holdBatches = StoreConfiguration(
    synchronous: .normal,
    groupCommit: GroupCommitPolicy(maxEvents: 10_000, maxDelay: .seconds(3600)))

  @Test func everyEventKindLandsInItsTableAndTheEventLog() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)], configuration: holdBatches)
    let t = Fixtures.start
    let events: [TrackingEvent] = [
      Fixtures.fixEvent(0, mission: "m"),
      TrackingEvent(
        time: t.addingTimeInterval(0.5), missionID: "m", kind: .source(.connected, detail: "test")),
      Fixtures.fixEvent(1, mission: "m"),
      TrackingEvent(
        time: t.addingTimeInterval(1), missionID: "m",
        kind: .enter(fenceID: "m", distanceMeters: 20, initial: false)),
      TrackingEvent(
        time: t.addingTimeInterval(1), missionID: "m",
        kind: .enter(fenceID: "other", distanceMeters: 5, initial: true)),
      TrackingEvent(
        time: t.addingTimeInterval(2), missionID: "m", kind: .rejected(reason: "outlier", count: 2)),
      TrackingEvent(
        time: t.addingTimeInterval(3), missionID: "m", kind: .rejected(reason: "outlier", count: 3)),
      TrackingEvent(
        time: t.addingTimeInterval(3), missionID: "m",
        kind: .rejected(reason: "duplicate", count: 1)),
      TrackingEvent(
        time: t.addingTimeInterval(31), missionID: "m", kind: .dwell(fenceID: "m", dwellSeconds: 30)
      ),
      TrackingEvent(
        time: t.addingTimeInterval(40), missionID: "m",
        kind: .exit(fenceID: "other", distanceMeters: 90)),
      TrackingEvent(
        time: t.addingTimeInterval(41), missionID: "m",
        kind: .crossed(fenceID: "x", closestDistanceMeters: 3)),
    ]
    try database.record(contentsOf: events)
    #expect(database.pendingEventCount == events.count)
    try database.flush()
    #expect(database.pendingEventCount == 0)

    let track = try database.track(ofMission: "m")
    #expect(track.count == 2)
    for (stored, index) in zip(track, 0...) {
      let original = Fixtures.fix(index)
      #expect(abs(stored.time.timeIntervalSince(original.time)) < 1e-6)
      var aligned = stored
      aligned.time = original.time
      #expect(aligned == original)
    }
    #expect(try database.eventLines(ofMission: "m") == events.map(\.jsonLine))
    #expect(try database.events(ofMission: "m").map(\.type) == events.map(\.type))
    // Typed rows: every event reads back as the value that was recorded.
    #expect(try database.events(ofMission: "m").map(\.event) == events)
    // Fence state is the engine's decision, carried by a batch: events alone store none.
    #expect(try database.fenceStates(ofMission: "m").isEmpty)
    #expect(try database.rejectionCounts(ofMission: "m") == ["outlier": 5, "duplicate": 1])
    #expect(database.ingestCounters.fixes == 2 && database.ingestCounters.events == events.count)
  }

  @Test func aReplayedBatchNeverDuplicatesFixesOrTheirEvents() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)], configuration: holdBatches)
    try database.record(contentsOf: (0..<100).map { Fixtures.fixEvent($0, mission: "m") })
    try database.flush()
    // Resumed from fix 50: the overlap is skipped, the rest is added.
    try database.record(contentsOf: (50..<150).map { Fixtures.fixEvent($0, mission: "m") })
    try database.flush()
    let track = try database.track(ofMission: "m")
    #expect(track.count == 150)
    #expect(zip(track, track.dropFirst()).allSatisfy { $0.time < $1.time })
    #expect(try database.events(ofMission: "m").count == 150)
    #expect(database.ingestCounters.duplicateFixes == 50)
  }

  /// A group holds the fixes of many missions (phones' single positions): they are written
  /// in runs across missions, and a replay is told apart by mission and time together.
  @Test func fixesOfManyMissionsInOneRunAreEachStoredOnceWithTheirEvents() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory, configuration: holdBatches)
    try database.putWorker(Worker(id: "bo"))
    try database.putWorker(Worker(id: "cy"))
    var missions = [Fixtures.mission("a", state: .active), Fixtures.mission("b", state: .active)]
    missions[0].workerID = "bo"
    missions[1].workerID = "cy"
    try database.insert(missions)
    // The same times for both missions, interleaved.
    func interleaved(_ range: Range<Int>) -> [TrackingEvent] {
      range.flatMap { [Fixtures.fixEvent($0, mission: "a"), Fixtures.fixEvent($0, mission: "b")] }
    }
    try database.record(contentsOf: interleaved(0..<20))
    try database.flush()
    // Half of these are stored already.
    try database.record(contentsOf: interleaved(10..<30))
    try database.flush()
    let times = (0..<30).map { Fixtures.fix($0).time }
    for id in ["a", "b"] {
      #expect(try database.track(ofMission: id).map(\.time) == times)
      #expect(try database.events(ofMission: id).map(\.event.time) == times)
    }
    #expect(database.ingestCounters.duplicateFixes == 20)
    let logged = try database.committedEvents(afterSequence: 0, limit: 100)
    #expect(
      logged.map(\.event.missionID) == Array(repeating: ["a", "b"], count: 30).flatMap { $0 })
  }

  @Test func repeatedTimesInOneBatchAreEachStoredOnce() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory,
      missions: [Fixtures.mission("a", state: .active), Fixtures.mission("b", state: .submitted)],
      configuration: holdBatches)
    var events: [TrackingEvent] = []
    for i in 0..<100 {
      events.append(Fixtures.fixEvent(i, mission: "a"))
      if i % 5 == 0 { events.append(Fixtures.fixEvent(i, mission: "a")) }
      if i % 11 == 0 {
        events.append(
          TrackingEvent(
            time: Fixtures.fix(i).time, missionID: "a", kind: .source(.gap, detail: "\(i)")))
      }
    }
    try database.record(contentsOf: events)
    try database.flush()
    #expect(try database.track(ofMission: "a").count == 100)
    // The log keeps the batch order, minus the repeated fixes.
    var seen: Set<String> = []
    let expectedLines = events.filter { event in
      guard case .fix = event.kind else { return true }
      return seen.insert(event.jsonLine).inserted
    }.map(\.jsonLine)
    #expect(try database.events().map(\.jsonLine) == expectedLines)
    #expect(database.ingestCounters.duplicateFixes == 20)
    // Events of a mission that is not tracked are refused with the batch they came in.
    try database.record(Fixtures.fixEvent(200, mission: "b"))
    #expect(throws: TrackingError.changedElsewhere(missionID: "b", state: .submitted)) {
      try database.flush()
    }
    #expect(try database.track(ofMission: "b").isEmpty)
  }

  @Test func eventsOfAnUnknownMissionAreRefusedBeforeTheyJoinTheBatch() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)], configuration: holdBatches)
    try database.record(Fixtures.fixEvent(0, mission: "m"))
    #expect(throws: StoreError.missionNotFound("ghost")) {
      try database.record(Fixtures.fixEvent(1, mission: "ghost"))
    }
    try database.flush()
    #expect(try database.track(ofMission: "m").count == 1)
  }

  @Test func aBatchCommitsWhenItIsFull() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)],
      configuration: StoreConfiguration(
        synchronous: .normal,
        groupCommit: GroupCommitPolicy(maxEvents: 10, maxDelay: .seconds(3600))))
    let reader = try MissionDatabase(
      path: directory.path(), configuration: StoreConfiguration(readOnly: true))
    try database.record(contentsOf: (0..<25).map { Fixtures.fixEvent($0, mission: "m") })
    #expect(try reader.track(ofMission: "m").count == 20)
    #expect(database.pendingEventCount == 5)
    #expect(database.ingestCounters.commits == 2)
    try database.flush()
    #expect(try reader.track(ofMission: "m").count == 25)
  }

  @Test func aBatchCommitsAfterItsDelayWithoutFurtherEvents() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)],
      configuration: StoreConfiguration(
        synchronous: .normal,
        groupCommit: GroupCommitPolicy(maxEvents: 1000, maxDelay: .milliseconds(20))))
    let reader = try MissionDatabase(
      path: directory.path(), configuration: StoreConfiguration(readOnly: true))
    try database.record(contentsOf: (0..<3).map { Fixtures.fixEvent($0, mission: "m") })
    let deadline = Date().addingTimeInterval(10)
    while try reader.track(ofMission: "m").count < 3, Date() < deadline { usleep(5000) }
    #expect(try reader.track(ofMission: "m").count == 3)
    #expect(database.pendingEventCount == 0)
  }

  @Test func immediatePolicyCommitsEveryEvent() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)],
      configuration: StoreConfiguration(synchronous: .normal, groupCommit: .immediate))
    try database.record(contentsOf: (0..<5).map { Fixtures.fixEvent($0, mission: "m") })
    #expect(database.pendingEventCount == 0)
    #expect(database.ingestCounters.commits == 5)
  }

  @Test func aCrashLosesOnlyTheUncommittedBatch() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)],
      configuration: StoreConfiguration(
        synchronous: .normal,
        groupCommit: GroupCommitPolicy(maxEvents: 100, maxDelay: .seconds(3600))))
    try database.record(contentsOf: (0..<250).map { Fixtures.fixEvent($0, mission: "m") })
    database.abandon()  // as if killed: no flush, no close
    let reopened = try MissionDatabase(path: directory.path())
    #expect(try reopened.integrityCheck() == ["ok"])
    let track = try reopened.track(ofMission: "m")
    #expect(track.count == 200)
    // Exactly the committed prefix: no gaps, no duplicates.
    for (stored, index) in zip(track, 0...) {
      #expect(abs(stored.time.timeIntervalSince(Fixtures.fix(index).time)) < 1e-6)
    }
    #expect(try reopened.events(ofMission: "m").count == 200)
    // Resuming the replay from the start fills the rest without duplicates.
    try reopened.record(contentsOf: (0..<250).map { Fixtures.fixEvent($0, mission: "m") })
    try reopened.flush()
    #expect(try reopened.track(ofMission: "m").count == 250)
    #expect(try reopened.events(ofMission: "m").count == 250)
  }

  @Test func closingCommitsPendingEvents() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)], configuration: holdBatches)
    try database.record(contentsOf: (0..<7).map { Fixtures.fixEvent($0, mission: "m") })
    try database.close()
    #expect(try MissionDatabase(path: directory.path()).track(ofMission: "m").count == 7)
  }

  @Test func aTransitionCommitsThePendingEventsBeforeItself() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)], configuration: holdBatches)
    let reader = try MissionDatabase(
      path: directory.path(), configuration: StoreConfiguration(readOnly: true))
    try database.record(contentsOf: (0..<3).map { Fixtures.fixEvent($0, mission: "m") })
    try database.apply(.arrive, toMission: "m", at: Fixtures.fix(3).time)
    #expect(try reader.events(ofMission: "m").map(\.type) == ["fix", "fix", "fix", "state"])
    #expect(try reader.mission(id: "m")?.state == .arrived)
  }

  @Test func anEnginesTransitionIsCheckedAgainstTheStoredState() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)], configuration: holdBatches)
    let t = Fixtures.start
    try database.record(Fixtures.fixEvent(0, mission: "m"))
    let arrive = MissionTransition(
      missionID: "m", action: .arrive, from: .active, to: .arrived, time: t)
    try database.commit(arrive)
    #expect(database.pendingEventCount == 0)
    #expect(try database.mission(id: "m")?.state == .arrived)
    #expect(try database.transitions(ofMission: "m").map(\.action) == [.arrive])
    // Another process got there first: the store says what it holds, and changes nothing.
    #expect(throws: TrackingError.changedElsewhere(missionID: "m", state: .arrived)) {
      try database.commit(arrive)
    }
    #expect(try database.transitions(ofMission: "m").count == 1)
    // A state event is never recorded as a plain event: its transition records it.
    #expect(throws: StoreError.self) {
      try database.record(
        TrackingEvent(time: t, missionID: "m", kind: .state(from: .arrived, to: .submitted)))
    }
    #expect(try database.events(ofMission: "m").filter { $0.type == "state" }.count == 1)
  }

  @Test func eventsOfAMissionStoppedByAnotherProcessAreDropped() throws {
    let directory = try TemporaryDirectory()
    let tracker = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)], configuration: holdBatches)
    try tracker.record(contentsOf: (0..<3).map { Fixtures.fixEvent($0, mission: "m") })
    try tracker.flush()
    try tracker.record(contentsOf: (3..<6).map { Fixtures.fixEvent($0, mission: "m") })
    // `missions submit m` from another shell, while three fixes wait for their commit.
    let other = try MissionDatabase(path: directory.path())
    try other.apply(.submit, toMission: "m", at: Fixtures.fix(10).time)
    #expect(throws: TrackingError.changedElsewhere(missionID: "m", state: .submitted)) {
      try tracker.flush()
    }
    #expect(try other.events(ofMission: "m").map(\.type) == ["fix", "fix", "fix", "state"])
    #expect(try tracker.track(ofMission: "m").count == 3)
    #expect(tracker.pendingEventCount == 0)
  }

  @Test func reopeningResumesTheActiveMissionWithItsFenceState() throws {
    let directory = try TemporaryDirectory()
    do {
      let database = try Fixtures.database(
        in: directory,
        missions: [
          Fixtures.mission("done", state: .completed), Fixtures.mission("m", state: .accepted),
        ],
        configuration: holdBatches)
      #expect(try database.activeMission() == nil)
      try database.apply(.start, toMission: "m", at: Fixtures.start)
      try database.record(contentsOf: (0..<10).map { Fixtures.fixEvent($0, mission: "m") })
      try database.record(
        TrackingBatch(
          missionID: "m",
          events: [
            TrackingEvent(
              time: Fixtures.fix(9).time, missionID: "m",
              kind: .enter(fenceID: "m", distanceMeters: 10, initial: false))
          ],
          fenceStates: ["m": FenceState(isInside: true, insideSince: Fixtures.fix(9).time)],
          travelledMeters: 90))
      try database.apply(.arrive, toMission: "m", at: Fixtures.fix(9).time)  // commits the batch
      try database.record(Fixtures.fixEvent(10, mission: "m"))  // never committed
      database.abandon()
    }
    let reopened = try MissionDatabase(path: directory.path())
    let resumed = try #require(try reopened.activeMission())
    #expect(resumed.mission.id == "m" && resumed.mission.state == .arrived)
    #expect(resumed.fences["m"]?.isInside == true)
    #expect(resumed.fences["m"]?.dwellReported == false)
    #expect(resumed.trackFixCount == 10)
    #expect(abs(resumed.lastFix!.time.timeIntervalSince(Fixtures.fix(9).time)) < 1e-6)
    try reopened.apply(.submit, toMission: "m")
    #expect(try reopened.activeMission() == nil)
  }

  @Test func aBatchsFenceStatesAndDistanceAreStoredAsGivenAndResumed() throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(
      in: directory, missions: [Fixtures.mission("m", state: .active)])
    #expect(try database.resumePoint(ofMission: "m") == nil)
    let state = FenceState(isInside: true, insideSince: Fixtures.start, dwellReported: true)
    // The event alone would mean "inside, no dwell yet": the store keeps what the engine
    // decided, it never derives fence state from events.
    let enter = TrackingEvent(
      time: Fixtures.start, missionID: "m",
      kind: .enter(fenceID: "other", distanceMeters: 3, initial: true))
    try database.record(
      TrackingBatch(
        missionID: "m", events: [Fixtures.fixEvent(0, mission: "m"), enter],
        fenceStates: ["other": state], travelledMeters: 12.5))
    let resume = try #require(try database.resumePoint(ofMission: "m"))
    let stored = try #require(resume.fenceStates["other"])
    #expect(stored.isInside && stored.dwellReported)
    #expect(abs(stored.insideSince!.timeIntervalSince(Fixtures.start)) < 1e-6)
    #expect(resume.fenceStates["m"] == nil)
    #expect(resume.travelledMeters == 12.5)
    #expect(resume.lastDelivered != nil)
  }

  /// A commit of a fleet's positions checks, and writes the session rows of, its missions
  /// `fixRunLength` per statement: 70 missions are three statements of each kind, the last
  /// one short. Every mission's fence state and distance is stored as given; one mission of
  /// the 70 taken out of tracking by another process drops the whole group, naming it.
  @Test func aGroupOfManyMissionsStoresEachOnesSessionRowsOrNoneOfThem() throws {
    let directory = try TemporaryDirectory()
    let ids = (0..<70).map { String(format: "m%02d", $0) }
    // One worker each: a worker tracks one mission at a time.
    let missions = ids.map { id in
      var mission = Fixtures.mission(id, state: .active)
      mission.workerID = "w-" + id
      return mission
    }
    let database = try Fixtures.database(
      in: directory, missions: missions, configuration: holdBatches)
    func batch(_ index: Int, second: Int) -> TrackingBatch {
      TrackingBatch(
        missionID: ids[index], events: [Fixtures.fixEvent(second, mission: ids[index])],
        fenceStates: [
          ids[index]: FenceState(
            isInside: index % 2 == 0, insideSince: index % 2 == 0 ? Fixtures.start : nil)
        ],
        travelledMeters: Double(index) + 0.5)
    }
    for index in ids.indices { try database.record(batch(index, second: 0)) }
    try database.flush()
    for (index, id) in ids.enumerated() {
      let resume = try #require(try database.resumePoint(ofMission: id), "\(id)")
      #expect(resume.travelledMeters == Double(index) + 0.5, "\(id)")
      #expect(resume.fenceStates[id]?.isInside == (index % 2 == 0), "\(id)")
      #expect(try database.track(ofMission: id).count == 1, "\(id)")
    }

    let other = try MissionDatabase(path: directory.path())
    try other.apply(.submit, toMission: "m45")
    for index in ids.indices { try database.record(batch(index, second: 1)) }
    #expect(throws: TrackingError.changedElsewhere(missionID: "m45", state: .submitted)) {
      try database.flush()
    }
    for id in ids { #expect(try database.track(ofMission: id).count == 1, "\(id)") }
    #expect(try database.resumePoint(ofMission: "m01")?.travelledMeters == 1.5)
  }
}
