import Foundation
import MissionTracking
import Testing

/// Polls `condition` until it holds (the engine consumes its source on another task).
func waitUntil(
  _ what: String = "condition", _ condition: () async -> Bool
) async throws {
  for _ in 0..<5000 {
    if await condition() { return }
    try await Task.sleep(for: .milliseconds(1))
  }
  Issue.record("timed out waiting for \(what)")
}

@Suite struct MissionEngineTests {
  static let target = Mission(
    id: "m1", title: "Shop front", coordinate: sigtuna, state: .accepted)

  /// A walk along a meridian toward (and past) the mission, starting 300 m south of it at
  /// `t0` and moving `step` metres per second.
  static func walk(_ t0: Double, count: Int, step: Double = 12) -> [Fix] {
    (0..<count).map { i in
      let south = 300 - step * Double(i)
      let position = south >= 0 ? offset(sigtuna, 180, south) : offset(sigtuna, 0, -south)
      return testFix(t0 + Double(i), position)
    }
  }

  /// An opened engine over `store` (a fresh in-memory store of `missions` by default).
  static func engine(
    _ missions: [Mission] = [target], source: any FixSource,
    store: (any TrackingStore)? = nil, clock: any MissionClock = ManualClock(.t(0)),
    configuration: MissionEngine.Configuration = .init(changePollInterval: .milliseconds(5))
  ) async throws -> MissionEngine {
    let engine = MissionEngine(
      store: store ?? InMemoryTrackingStore(missions: missions), source: source, clock: clock,
      configuration: configuration)
    try await engine.open()
    return engine
  }

  static func drain(_ engine: MissionEngine) async -> [TrackingEvent] {
    await engine.shutdown()
    var events: [TrackingEvent] = []
    for await event in engine.events { events.append(event) }
    return events
  }

  @Test func sourceRunsOnlyBetweenStartAndSubmit() async throws {
    let source = RecordingSource()
    let engine = try await Self.engine(source: source)
    #expect(source.send(.fix(testFix(0, sigtuna))) == false)
    #expect(source.history == [])

    try await engine.perform(.start, on: "m1", at: .t(0))
    #expect(source.history == ["start"])
    for fix in Self.walk(1, count: 5) { #expect(source.send(.fix(fix))) }
    try await waitUntil("5 reports") { await engine.summary?.reports == 5 }

    try await engine.perform(.submit, on: "m1", at: .t(100))
    // Stopped before `perform` returned, and nothing gets through afterwards.
    #expect(source.history == ["start", "stop"])
    #expect(source.send(.fix(testFix(200, sigtuna))) == false)
    let events = await Self.drain(engine)
    let fixTimes = events.compactMap { e -> Date? in
      if case .fix = e.kind { return e.time }
      return nil
    }
    #expect(fixTimes == (1...5).map { .t(Double($0)) })
    #expect(events.last?.kind == .state(from: .active, to: .submitted))
    #expect(events.first?.kind == .state(from: .accepted, to: .active))
  }

  @Test func reportsQueuedWhenStoppingAreNeverProcessed() async throws {
    let source = RecordingSource()
    let engine = try await Self.engine(source: source)
    try await engine.perform(.start, on: "m1", at: .t(0))
    // Fill the stream faster than the engine drains it, then cancel at once.
    for fix in Self.walk(1, count: 200) { source.send(.fix(fix)) }
    try await engine.perform(.cancel, on: "m1", at: .t(1000))
    let processed = await engine.lastSummary?.reports ?? -1
    #expect(source.stops == 1)
    let events = await Self.drain(engine)
    let cancelIndex = try #require(
      events.firstIndex { $0.kind == .state(from: .active, to: .cancelled) })
    #expect(events[cancelIndex...].allSatisfy { $0.type == "state" })
    // Every fix event came from a report the pipeline counted before the stop.
    let fixes = events.filter { $0.type == "fix" }.count
    #expect(fixes <= processed)
  }

  @Test func startingTwiceOpensOneStream() async throws {
    let source = RecordingSource()
    let engine = try await Self.engine(source: source)
    #expect(try await engine.perform(.start, on: "m1", at: .t(0)) == .active)
    #expect(try await engine.perform(.start, on: "m1", at: .t(1)) == .active)
    #expect(source.starts == 1)
    let events = await Self.drain(engine)
    #expect(events.filter { $0.type == "state" }.count == 1)
  }

  @Test func stoppingTwiceIsHarmless() async throws {
    let source = RecordingSource()
    let engine = try await Self.engine(source: source)
    try await engine.perform(.start, on: "m1", at: .t(0))
    #expect(try await engine.perform(.submit, on: "m1", at: .t(1)) == .submitted)
    #expect(try await engine.perform(.submit, on: "m1", at: .t(2)) == .submitted)
    #expect(source.history == ["start", "stop"])
    await #expect(
      throws: TrackingError.illegalTransition(missionID: "m1", state: .submitted, action: .cancel)
    ) { try await engine.perform(.cancel, on: "m1", at: .t(3)) }
    #expect(await engine.activeMissionID == nil)
    let states = await Self.drain(engine).filter { $0.type == "state" }
    #expect(states.count == 2)
  }

  @Test func atMostOneMissionIsActive() async throws {
    let source = RecordingSource()
    var other = Self.target
    other.id = "m2"
    let engine = try await Self.engine([Self.target, other], source: source)
    try await engine.perform(.start, on: "m1", at: .t(0))
    await #expect(
      throws: TrackingError.workerBusy(workerID: "local", tracked: "m1", requested: "m2")
    ) {
      try await engine.perform(.start, on: "m2", at: .t(1))
    }
    #expect(await engine.mission("m2")?.state == .accepted)
    #expect(source.starts == 1)
    // Once m1 is done, m2 can start: a second stream.
    try await engine.perform(.cancel, on: "m1", at: .t(2))
    try await engine.perform(.start, on: "m2", at: .t(3))
    #expect(source.history == ["start", "stop", "start"])
    await #expect(throws: TrackingError.unknownMission("nope")) {
      try await engine.perform(.start, on: "nope")
    }
    _ = await Self.drain(engine)

    // A store that holds a mission active: the engine resumes it when it opens, and no
    // other mission can start until it stops.
    let resumed = try await Self.engine(
      [Mission(id: "imported", coordinate: sigtuna, state: .active), Self.target],
      source: source)
    #expect(await resumed.activeMissionID == "imported")
    #expect(source.history == ["start", "stop", "start", "stop", "start"])
    await #expect(
      throws: TrackingError.workerBusy(workerID: "local", tracked: "imported", requested: "m1")
    ) { try await resumed.perform(.start, on: "m1", at: .t(4)) }
    try await resumed.perform(.cancel, on: "imported", at: .t(5))
    try await resumed.perform(.start, on: "m1", at: .t(6))
    #expect(await resumed.activeMissionID == "m1")
    #expect(source.history == ["start", "stop", "start", "stop", "start", "stop", "start"])
    _ = await Self.drain(resumed)
  }

  @Test func aTransitionIsCommittedBeforeItsEffects() async throws {
    let source = RecordingSource()
    let store = RecordingStore([Self.target])
    let engine = try await Self.engine(source: source, store: store)

    await store.setFailCommits(true)
    await #expect(throws: RecordingStore.Refused.self) {
      try await engine.perform(.start, on: "m1", at: .t(0))
    }
    #expect(source.history == [])
    #expect(await engine.mission("m1")?.state == .accepted)

    await store.setFailCommits(false)
    try await engine.perform(.start, on: "m1", at: .t(0))
    // Walk into the fence: the enter is recorded, then `arrive` committed, then published.
    for fix in Self.walk(1, count: 30) { source.send(.fix(fix)) }
    try await waitUntil("arrival") { await engine.mission("m1")?.state == .arrived }
    try await engine.perform(.submit, on: "m1", at: .t(500))
    let log = await store.log
    // The refused attempt flushed too, then changed nothing.
    #expect(Array(log.prefix(3)) == ["flush", "flush", "commit accepted->active"])
    let arrive = try #require(log.firstIndex(of: "commit active->arrived"))
    #expect(log[arrive - 2].hasSuffix("enter"))
    #expect(log[arrive - 1] == "flush")
    #expect(log.suffix(2) == ["flush", "commit arrived->submitted"])
    let enterBatch = try #require(
      await store.batches.first { $0.events.contains { $0.type == "enter" } })
    #expect(enterBatch.fenceStates["m1"]?.isInside == true)

    let events = await Self.drain(engine)
    let enter = try #require(events.firstIndex { $0.type == "enter" })
    #expect(events[enter + 1].kind == .state(from: .active, to: .arrived))
    #expect(events[enter + 1].time == events[enter].time)
  }

  @Test func aFailingStoreStopsTrackingAndPublishesNothingUnrecorded() async throws {
    let source = RecordingSource()
    let store = RecordingStore([Self.target])
    let engine = try await Self.engine(source: source, store: store)
    try await engine.perform(.start, on: "m1", at: .t(0))
    source.send(.fix(testFix(1, offset(sigtuna, 180, 300))))
    source.send(.fix(testFix(2, offset(sigtuna, 180, 280))))
    try await waitUntil("first fix recorded") { await !store.batches.isEmpty }
    await store.setFailRecords(true)
    source.send(.fix(testFix(3, offset(sigtuna, 180, 260))))
    try await waitUntil("tracking stopped") { await !engine.isTracking }
    #expect(await engine.failure != nil)
    #expect(await engine.waitUntilTrackingEnds() == .failed("Refused()"))
    try await waitUntil("source stopped") { source.stops == 1 }
    let events = await Self.drain(engine)
    // The fix of t=1 was recorded and published; the one of t=2 was not recorded, so not
    // published either; the failure is reported as a source event.
    #expect(events.filter { $0.type == "fix" }.map(\.time) == [.t(1)])
    #expect(events.last?.type == "source")
    #expect(events.last?.jsonLine.contains("tracking stopped") == true)
  }

  /// Runs `fixes` through a fresh engine over `store` until the source ends, then shuts it
  /// down without a transition (as a kill or a SIGTERM would leave the store).
  static func session(_ store: InMemoryTrackingStore, _ fixes: [Fix]) async throws
    -> [TrackingEvent]
  {
    let engine = try await engine(source: ReplaySource(fixes.map(SourceReport.fix)), store: store)
    if await engine.activeMissionID == nil {
      try await engine.perform(.start, on: "m1")
    }
    _ = await engine.waitUntilTrackingEnds()
    return await drain(engine)
  }

  @Test func resumingInsideGivesNoSecondEnter() async throws {
    let store = InMemoryTrackingStore(missions: [Self.target])
    let first = try await Self.session(store, Self.walk(0, count: 30))
    #expect(first.filter { $0.type == "enter" }.count == 1)
    #expect(await store.mission("m1")?.state == .arrived)
    // Resumed (also when the same walk is replayed again): no second enter, no state event.
    for t0 in [30.0, 0] {
      let more = (0..<5).map { testFix(t0 + Double($0), offset(sigtuna, 0, 5)) }
      let events = try await Self.session(store, more)
      #expect(events.filter { $0.type == "enter" }.isEmpty)
      #expect(!events.contains { $0.type == "state" })
      #expect(events.last?.kind == .source(.ended, detail: ""))
    }
  }

  @Test func resumingOutsideEntersLaterWithoutInitial() async throws {
    let store = InMemoryTrackingStore(missions: [Self.target])
    _ = try await Self.session(store, Self.walk(0, count: 5))
    let events = try await Self.session(
      store, (0..<5).map { testFix(10 + Double($0), offset(sigtuna, 0, 5)) })
    let enters = events.filter { $0.type == "enter" }
    #expect(enters.count == 1)
    #expect(
      enters.first?.kind
        == .enter(fenceID: "m1", distanceMeters: enters.first?.fenceDistance ?? 0, initial: false))
  }

  @Test func otherMissionsFencesAreNotEnteredTwiceAfterARestart() async throws {
    let neighbour = Mission(
      id: "n1", coordinate: offset(sigtuna, 180, 200), geofenceRadiusMeters: 40)
    let store = InMemoryTrackingStore(missions: [Self.target, neighbour])
    // Walk to the neighbour and stop inside it (the process is killed there).
    func south(_ meters: Double) -> Coordinate {
      meters >= 0 ? offset(sigtuna, 180, meters) : offset(sigtuna, 0, -meters)
    }
    let toNeighbour = (0..<12).map { testFix(Double($0), south(320 - 10 * Double($0))) }
    let first = try await Self.session(store, toNeighbour)
    #expect(first.filter { $0.type == "enter" }.map(\.fenceID) == ["n1"])
    // Restarted: still inside n1, then on to the mission.
    let onwards = (0..<25).map { testFix(20 + Double($0), south(205 - 10 * Double($0))) }
    let second = try await Self.session(store, onwards)
    #expect(second.filter { $0.type == "enter" }.map(\.fenceID) == ["m1"])
    #expect(second.filter { $0.type == "exit" }.map(\.fenceID) == ["n1"])
  }

  @Test func startingInsideGivesOneInitialEnter() async throws {
    let fixes = (0..<90).map { SourceReport.fix(testFix(Double($0), offset(sigtuna, 90, 10))) }
    let engine = try await Self.engine(source: ReplaySource(fixes))
    try await engine.perform(.start, on: "m1", at: .t(0))
    _ = await engine.waitUntilTrackingEnds()
    let events = await Self.drain(engine)
    let fenceEvents = events.filter { $0.fenceID != nil }
    #expect(fenceEvents.map(\.type) == ["enter", "dwell"])
    if case .enter(_, _, let initial) = fenceEvents[0].kind { #expect(initial) }
    #expect(fenceEvents[1].time == .t(60))
    #expect(events.filter { $0.type == "fix" }.count == 1)
  }

  @Test func aMissionStartedBeforeItsFirstFixEntersInitially() async throws {
    // `missions start` in another shell, then tracking: nothing recorded yet.
    var started = Self.target
    started.state = .active
    let fixes = (0..<3).map { SourceReport.fix(testFix(Double($0), offset(sigtuna, 90, 10))) }
    let engine = try await Self.engine([started], source: ReplaySource(fixes))
    #expect(await engine.activeMissionID == "m1")
    _ = await engine.waitUntilTrackingEnds()
    let enters = await Self.drain(engine).filter { $0.type == "enter" }
    #expect(enters.count == 1)
    if case .enter(_, _, let initial) = enters.first?.kind { #expect(initial) }
  }

  @Test func anEnterOnTheLastFixArrives() async throws {
    // The last fix is inside; the cleaner holds it back until the source ends.
    let fixes = Self.walk(0, count: 22)
    let inside = try #require(fixes.last)
    #expect(sigtuna.distance(to: inside.coordinate) <= 50)
    #expect(sigtuna.distance(to: fixes[20].coordinate) > 50)
    let store = InMemoryTrackingStore(missions: [Self.target])
    let events = try await Self.session(store, fixes)
    #expect(events.filter { $0.type == "enter" }.count == 1)
    #expect(events.contains { $0.kind == .state(from: .active, to: .arrived) })
    #expect(await store.mission("m1")?.state == .arrived)
  }

  @Test func transitionsAreStampedByTheEnginesClock() async throws {
    let clock = ManualClock(.t(42))
    let engine = try await Self.engine(source: RecordingSource(), clock: clock)
    try await engine.perform(.start, on: "m1")
    clock.set(.t(50))
    try await engine.perform(.cancel, on: "m1")
    let states = await Self.drain(engine).filter { $0.type == "state" }
    #expect(states.map(\.time) == [.t(42), .t(50)])
  }

  @Test func anotherProcessStoppingTheMissionStopsTrackingAtOnce() async throws {
    let source = RecordingSource()
    let store = InMemoryTrackingStore(missions: [Self.target])
    let engine = try await Self.engine(source: source, store: store)
    try await engine.perform(.start, on: "m1", at: .t(0))
    for fix in Self.walk(1, count: 5) { source.send(.fix(fix)) }
    try await waitUntil("5 reports") { await engine.summary?.reports == 5 }
    // `missions submit m1` from another shell.
    var submitted = try #require(await store.mission("m1"))
    submitted.state = .submitted
    await store.update([submitted])
    #expect(await engine.waitUntilTrackingEnds() == .missionStopped(.submitted))
    #expect(source.history == ["start", "stop"])
    #expect(source.send(.fix(testFix(10, sigtuna))) == false)
    #expect(await engine.mission("m1")?.state == .submitted)
    let recorded = await store.events.count
    _ = await Self.drain(engine)
    #expect(await store.events.count == recorded)
    // And a batch arriving after the other process's stop is refused by the store.
    await #expect(throws: TrackingError.changedElsewhere(missionID: "m1", state: .submitted)) {
      try await store.record(
        TrackingBatch(missionID: "m1", events: [], fenceStates: [:], travelledMeters: 0))
    }
  }

  @Test func missionsAddedElsewhereBecomeFencesWhileTracking() async throws {
    let source = RecordingSource()
    let store = InMemoryTrackingStore(missions: [Self.target])
    let engine = try await Self.engine(source: source, store: store)
    try await engine.perform(.start, on: "m1", at: .t(0))
    let walk = Self.walk(1, count: 20, step: 3)
    for fix in walk.prefix(5) { source.send(.fix(fix)) }
    try await waitUntil("5 reports") { await engine.summary?.reports == 5 }
    // An import by another process puts a mission on the worker's path.
    await store.update([
      Mission(id: "new", coordinate: walk[12].coordinate, geofenceRadiusMeters: 10)
    ])
    try await waitUntil("seen") { await engine.mission("new") != nil }
    for fix in walk.dropFirst(5) { source.send(.fix(fix)) }
    try await waitUntil("20 reports") { await engine.summary?.reports == 20 }
    let events = await Self.drain(engine)
    #expect(events.filter { $0.type == "enter" }.map(\.fenceID) == ["new"])
    let near = try await engine.missions(within: 20, of: walk[12].coordinate)
    #expect(near.map(\.id) == ["new"])
  }

  @Test func sourceStatusAndFailuresBecomeSourceEvents() async throws {
    struct Broken: Error, CustomStringConvertible { var description: String { "device gone" } }
    struct FailingSource: FixSource {
      func reports() -> AsyncThrowingStream<SourceReport, any Error> {
        AsyncThrowingStream { c in
          c.yield(.status(SourceStatus(.connected, time: .t(-5), detail: "test")))
          c.yield(.fix(testFix(1, offset(sigtuna, 0, 500))))
          c.yield(.status(SourceStatus(.noFix, time: .t(99))))
          c.finish(throwing: Broken())
        }
      }
    }
    let engine = try await Self.engine(source: FailingSource())
    try await engine.perform(.start, on: "m1", at: .t(-10))
    #expect(await engine.waitUntilTrackingEnds() == .failed("device gone"))
    #expect(await engine.failure == "device gone")
    let lines = await Self.drain(engine).map(\.jsonLine)
    #expect(lines.count == 5)
    #expect(lines[1].contains(#""type":"source","time":"2026-05-04T09:59:55.000Z""#))
    #expect(lines[1].contains(#""status":"connected","detail":"test""#))
    // Stamped with the latest fix time, so events stay in fix-time order; the fix itself is
    // released when its epoch is complete (here: at the end of the source).
    #expect(
      lines[2].contains(
        #""time":"2026-05-04T10:00:01.000Z","mission_id":"m1","worker_id":"local","status":"no_fix""#
      ))
    #expect(
      lines[3].hasPrefix(#"{"type":"fix","time":"2026-05-04T10:00:01.000Z","mission_id":"m1""#))
    #expect(lines[3].contains(#""distance_m":"#))
    #expect(lines[4].contains(#""status":"disconnected","detail":"device gone""#))
  }

  @Test func dueMissionsExpire() async throws {
    let engine = try await Self.engine(
      [
        Mission(id: "a", coordinate: sigtuna, deadline: .t(10), state: .open),
        Mission(id: "b", coordinate: sigtuna, deadline: .t(20), state: .accepted),
        Mission(id: "c", coordinate: sigtuna, deadline: nil, state: .open),
      ], source: RecordingSource())
    #expect(try await engine.expireDue(at: .t(15)) == ["a"])
    #expect(try await engine.expireDue(at: .t(25)) == ["b"])
    #expect(await engine.mission("c")?.state == .open)
    _ = await Self.drain(engine)
  }

  @Test func nearbyFencesComeFromTheGrid() async throws {
    let neighbour = Mission(
      id: "n1", coordinate: offset(sigtuna, 180, 150), geofenceRadiusMeters: 30)
    let finished = Mission(
      id: "done", coordinate: offset(sigtuna, 180, 100), geofenceRadiusMeters: 30,
      state: .completed)
    let nowhere = testFix(-1, Coordinate(uncheckedLatitude: 0, longitude: 0))
    let fixes = ([nowhere] + Self.walk(0, count: 100, step: 3)).map(SourceReport.fix)
    let engine = try await Self.engine(
      [Self.target, neighbour, finished], source: ReplaySource(fixes))
    try await engine.perform(.start, on: "m1", at: .t(0))
    _ = await engine.waitUntilTrackingEnds()
    let fenceEvents = await Self.drain(engine).filter { $0.fenceID != nil }
    #expect(
      fenceEvents.map { "\($0.type) \($0.fenceID ?? "")" } == ["enter n1", "exit n1", "enter m1"])
    #expect(fenceEvents.allSatisfy { $0.missionID == "m1" })
  }
}

extension TrackingEvent {
  var fenceDistance: Double {
    switch kind {
    case .enter(_, let d, _), .exit(_, let d): d
    default: .nan
    }
  }
}
