import Foundation
import MissionTracking
import Testing

/// Polls `condition` until it holds (the tracker consumes its source on another task).
func waitUntil(
  _ what: String = "condition", _ condition: () async -> Bool
) async throws {
  for _ in 0..<5000 {
    if await condition() { return }
    try await Task.sleep(for: .milliseconds(1))
  }
  Issue.record("timed out waiting for \(what)")
}

@Suite struct MissionTrackerTests {
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

  static func drain(_ tracker: MissionTracker) async -> [TrackingEvent] {
    await tracker.shutdown()
    var events: [TrackingEvent] = []
    for await event in tracker.events { events.append(event) }
    return events
  }

  @Test func sourceRunsOnlyBetweenStartAndSubmit() async throws {
    let source = RecordingSource()
    let tracker = MissionTracker(source: source)
    try await tracker.add(Self.target)
    #expect(source.send(.fix(testFix(0, sigtuna))) == false)
    #expect(source.history == [])

    try await tracker.perform(.start, on: "m1", at: .t(0))
    #expect(source.history == ["start"])
    for fix in Self.walk(1, count: 5) { #expect(source.send(.fix(fix))) }
    try await waitUntil("5 reports") { await tracker.summary?.reports == 5 }

    try await tracker.perform(.submit, on: "m1", at: .t(100))
    // Stopped before `perform` returned, and nothing gets through afterwards.
    #expect(source.history == ["start", "stop"])
    #expect(source.send(.fix(testFix(200, sigtuna))) == false)
    let events = await Self.drain(tracker)
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
    let tracker = MissionTracker(source: source)
    try await tracker.add(Self.target)
    try await tracker.perform(.start, on: "m1", at: .t(0))
    // Fill the stream faster than the tracker drains it, then cancel at once.
    for fix in Self.walk(1, count: 200) { source.send(.fix(fix)) }
    try await tracker.perform(.cancel, on: "m1", at: .t(1000))
    let processed = await tracker.lastSummary?.reports ?? -1
    #expect(source.stops == 1)
    let events = await Self.drain(tracker)
    let cancelIndex = try #require(
      events.firstIndex { $0.kind == .state(from: .active, to: .cancelled) })
    #expect(events[cancelIndex...].allSatisfy { $0.type == "state" })
    // Every fix event came from a report the pipeline counted before the stop.
    let fixes = events.filter { $0.type == "fix" }.count
    #expect(fixes <= processed)
  }

  @Test func startingTwiceOpensOneStream() async throws {
    let source = RecordingSource()
    let tracker = MissionTracker(source: source)
    try await tracker.add(Self.target)
    #expect(try await tracker.perform(.start, on: "m1", at: .t(0)) == .active)
    #expect(try await tracker.perform(.start, on: "m1", at: .t(1)) == .active)
    #expect(source.starts == 1)
    let events = await Self.drain(tracker)
    #expect(events.filter { $0.type == "state" }.count == 1)
  }

  @Test func stoppingTwiceIsHarmless() async throws {
    let source = RecordingSource()
    let tracker = MissionTracker(source: source)
    try await tracker.add(Self.target)
    try await tracker.perform(.start, on: "m1", at: .t(0))
    #expect(try await tracker.perform(.submit, on: "m1", at: .t(1)) == .submitted)
    #expect(try await tracker.perform(.submit, on: "m1", at: .t(2)) == .submitted)
    #expect(source.history == ["start", "stop"])
    await #expect(
      throws: TrackingError.illegalTransition(missionID: "m1", state: .submitted, action: .cancel)
    ) { try await tracker.perform(.cancel, on: "m1", at: .t(3)) }
    #expect(await tracker.activeMissionID == nil)
    let states = await Self.drain(tracker).filter { $0.type == "state" }
    #expect(states.count == 2)
  }

  @Test func atMostOneMissionIsActive() async throws {
    let source = RecordingSource()
    let tracker = MissionTracker(source: source)
    try await tracker.add(Self.target)
    var other = Self.target
    other.id = "m2"
    try await tracker.add(other)
    try await tracker.perform(.start, on: "m1", at: .t(0))
    await #expect(throws: TrackingError.anotherMissionActive(active: "m1", requested: "m2")) {
      try await tracker.perform(.start, on: "m2", at: .t(1))
    }
    #expect(await tracker.mission("m2")?.state == .accepted)
    #expect(source.starts == 1)
    // Once m1 is done, m2 can start: a second stream.
    try await tracker.perform(.cancel, on: "m1", at: .t(2))
    try await tracker.perform(.start, on: "m2", at: .t(3))
    #expect(source.history == ["start", "stop", "start"])
    // A mission imported as active but not tracked here stops nothing when cancelled.
    await tracker.shutdown()
    let second = MissionTracker(source: source)
    try await second.add(Mission(id: "imported", coordinate: sigtuna, state: .active))
    try await second.add(Self.target)
    try await second.perform(.start, on: "m1", at: .t(4))
    try await second.perform(.cancel, on: "imported", at: .t(5))
    #expect(await second.activeMissionID == "m1")
    #expect(source.history == ["start", "stop", "start", "stop", "start"])
    _ = await Self.drain(second)
    await #expect(throws: TrackingError.unknownMission("nope")) {
      try await tracker.perform(.start, on: "nope")
    }
    _ = await Self.drain(tracker)
  }

  @Test func aTransitionIsCommittedBeforeItsEffects() async throws {
    let source = RecordingSource()
    let sink = RecordingSink()
    let tracker = MissionTracker(source: source, sink: sink)
    try await tracker.add(Self.target)

    await sink.setFailCommits(true)
    await #expect(throws: RecordingSink.Refused.self) {
      try await tracker.perform(.start, on: "m1", at: .t(0))
    }
    #expect(source.history == [])
    #expect(await tracker.mission("m1")?.state == .accepted)

    await sink.setFailCommits(false)
    try await tracker.perform(.start, on: "m1", at: .t(0))
    // Walk into the fence: the enter is recorded, then `arrive` committed, then published.
    for fix in Self.walk(1, count: 30) { source.send(.fix(fix)) }
    try await waitUntil("arrival") { await tracker.mission("m1")?.state == .arrived }
    try await tracker.perform(.submit, on: "m1", at: .t(500))
    let log = await sink.log
    // The refused attempt flushed too, then changed nothing.
    #expect(Array(log.prefix(3)) == ["flush", "flush", "commit accepted->active"])
    let arrive = try #require(log.firstIndex(of: "commit active->arrived"))
    #expect(log[arrive - 2].hasSuffix("enter"))
    #expect(log[arrive - 1] == "flush")
    #expect(log.suffix(2) == ["flush", "commit arrived->submitted"])
    let enterBatch = try #require(
      await sink.batches.first { $0.events.contains { $0.type == "enter" } })
    #expect(enterBatch.fenceStates["m1"]?.isInside == true)

    let events = await Self.drain(tracker)
    let enter = try #require(events.firstIndex { $0.type == "enter" })
    #expect(events[enter + 1].kind == .state(from: .active, to: .arrived))
    #expect(events[enter + 1].time == events[enter].time)
  }

  @Test func aFailingStoreStopsTrackingAndPublishesNothingUnrecorded() async throws {
    let source = RecordingSource()
    let sink = RecordingSink()
    let tracker = MissionTracker(source: source, sink: sink)
    try await tracker.add(Self.target)
    try await tracker.perform(.start, on: "m1", at: .t(0))
    source.send(.fix(testFix(1, offset(sigtuna, 180, 300))))
    source.send(.fix(testFix(2, offset(sigtuna, 180, 280))))
    try await waitUntil("first fix recorded") { await !sink.batches.isEmpty }
    await sink.setFailRecords(true)
    source.send(.fix(testFix(3, offset(sigtuna, 180, 260))))
    try await waitUntil("tracking stopped") { await tracker.activeMissionID == nil }
    #expect(await tracker.failure != nil)
    try await waitUntil("source stopped") { source.stops == 1 }
    let events = await Self.drain(tracker)
    // The fix of t=1 was recorded and published; the one of t=2 was not recorded, so not
    // published either; the failure is reported as a source event.
    #expect(events.filter { $0.type == "fix" }.map(\.time) == [.t(1)])
    #expect(events.last?.type == "source")
    #expect(events.last?.jsonLine.contains("tracking stopped") == true)
  }

  @Test func resumingInsideGivesNoSecondEnter() async throws {
    let inside = FenceState(isInside: true, insideSince: .t(0), dwellReported: false)
    for (states, expectEnter) in [(["m1": inside], false), (["m1": FenceState()], true)] {
      let source = RecordingSource()
      let tracker = MissionTracker(source: source)
      var mission = Self.target
      mission.state = .arrived
      try await tracker.resume(mission, from: .init(fenceStates: states))
      #expect(source.starts == 1)
      for i in 0..<5 { source.send(.fix(testFix(10 + Double(i), offset(sigtuna, 0, 5)))) }
      source.end()
      await tracker.waitUntilSourceEnds()
      let events = await Self.drain(tracker)
      let enters = events.filter { $0.type == "enter" }
      #expect(enters.count == (expectEnter ? 1 : 0))
      if expectEnter {
        #expect(
          enters[0].kind
            == .enter(fenceID: "m1", distanceMeters: enters[0].fenceDistance, initial: false))
      }
      #expect(!events.contains { $0.type == "state" })
      #expect(events.last?.kind == .source(.ended, detail: ""))
    }
  }

  @Test func startingInsideGivesOneInitialEnter() async throws {
    let fixes = (0..<90).map { SourceReport.fix(testFix(Double($0), offset(sigtuna, 90, 10))) }
    let tracker = MissionTracker(source: ReplaySource(fixes))
    try await tracker.add(Self.target)
    try await tracker.perform(.start, on: "m1", at: .t(0))
    await tracker.waitUntilSourceEnds()
    let events = await Self.drain(tracker)
    let fenceEvents = events.filter { $0.fenceID != nil }
    #expect(fenceEvents.map(\.type) == ["enter", "dwell"])
    if case .enter(_, _, let initial) = fenceEvents[0].kind { #expect(initial) }
    #expect(fenceEvents[1].time == .t(60))
    #expect(events.filter { $0.type == "fix" }.count == 1)
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
    let tracker = MissionTracker(source: FailingSource())
    try await tracker.add(Self.target)
    try await tracker.perform(.start, on: "m1", at: .t(-10))
    await tracker.waitUntilSourceEnds()
    #expect(await tracker.failure == "device gone")
    let lines = await Self.drain(tracker).map(\.jsonLine)
    #expect(lines.count == 5)
    #expect(lines[1].contains(#""type":"source","time":"2026-05-04T09:59:55.000Z""#))
    #expect(lines[1].contains(#""status":"connected","detail":"test""#))
    // Stamped with the latest fix time, so events stay in fix-time order; the fix itself is
    // released when its epoch is complete (here: at the end of the source).
    #expect(
      lines[2].contains(#""time":"2026-05-04T10:00:01.000Z","mission_id":"m1","status":"no_fix""#))
    #expect(
      lines[3].hasPrefix(#"{"type":"fix","time":"2026-05-04T10:00:01.000Z","mission_id":"m1""#))
    #expect(lines[3].contains(#""distance_m":"#))
    #expect(lines[4].contains(#""status":"disconnected","detail":"device gone""#))
  }

  @Test func dueMissionsExpire() async throws {
    let tracker = MissionTracker(source: RecordingSource())
    try await tracker.add(Mission(id: "a", coordinate: sigtuna, deadline: .t(10), state: .open))
    try await tracker.add(Mission(id: "b", coordinate: sigtuna, deadline: .t(20), state: .accepted))
    try await tracker.add(Mission(id: "c", coordinate: sigtuna, deadline: nil, state: .open))
    #expect(try await tracker.expireDue(at: .t(15)) == ["a"])
    #expect(try await tracker.expireDue(at: .t(25)) == ["b"])
    #expect(await tracker.mission("c")?.state == .open)
    _ = await Self.drain(tracker)
  }

  @Test func nearbyFencesComeFromTheCatalog() async throws {
    let neighbour = Geofence(id: "n1", center: offset(sigtuna, 180, 150), radiusMeters: 30)
    let asked = Counter()
    let catalog = ClosureFenceCatalog { radius, _ in
      asked.increment()
      return radius >= 1000 ? [neighbour] : []
    }
    let nowhere = testFix(-1, Coordinate(uncheckedLatitude: 0, longitude: 0))
    let fixes = ([nowhere] + Self.walk(0, count: 100, step: 3)).map(SourceReport.fix)
    let tracker = MissionTracker(source: ReplaySource(fixes), catalog: catalog)
    try await tracker.add(Self.target)
    try await tracker.perform(.start, on: "m1", at: .t(0))
    await tracker.waitUntilSourceEnds()
    let fenceEvents = await Self.drain(tracker).filter { $0.fenceID != nil }
    #expect(fenceEvents.map { "\($0.type) \($0.fenceID!)" } == ["enter n1", "exit n1", "enter m1"])
    #expect(fenceEvents.allSatisfy { $0.missionID == "m1" })
    // Asked at the first valid fix and again after 250 m (the walk covers 297 m); never
    // for the (0, 0) report.
    #expect(asked.value == 2)
  }
}

/// A thread-safe counter for closures.
///
/// `@unchecked Sendable`: `count` is only touched under `lock`.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0
  func increment() { lock.withLock { count += 1 } }
  var value: Int { lock.withLock { count } }
}

extension TrackingEvent {
  var fenceDistance: Double {
    switch kind {
    case .enter(_, let d, _), .exit(_, let d): d
    default: .nan
    }
  }
}
