import Foundation
import MissionProximity
import Testing

@testable import MissionTracking

/// Many workers through one `MissionEngine`: independent sessions, sources per worker,
/// pushed fixes and watches.
@Suite struct FleetEngineTests {
  /// The mission of worker `index`: 3 km apart, so walks never pass another's fence.
  static func place(_ index: Int) -> Coordinate { offset(sigtuna, 90, 3000 * Double(index)) }

  /// The point `meters` south of `origin` (north when negative).
  static func south(of origin: Coordinate, _ meters: Double) -> Coordinate {
    meters >= 0 ? offset(origin, 180, meters) : offset(origin, 0, -meters)
  }

  static func engine(
    _ missions: [Mission], store: InMemoryTrackingStore? = nil,
    sources: @escaping @Sendable (String) -> (any FixSource)? = { _ in nil }
  ) async throws -> (MissionEngine, InMemoryTrackingStore) {
    let store = store ?? InMemoryTrackingStore(missions: missions)
    let engine = MissionEngine(
      store: store, sources: sources, clock: ManualClock(.t(0)),
      configuration: .init(changePollInterval: .milliseconds(5)))
    try await engine.open()
    return (engine, store)
  }

  @Test func twoWorkersWalkingIntoTwoFencesAtOnceArriveEachAtTheirOwnFixTime() async throws {
    // Two missions 300 m apart; each worker walks north into its own fence, one fix a second,
    // the fixes of both interleaved. Each passes only its own fence.
    let a = sigtuna
    let b = offset(sigtuna, 90, 300)
    let (engine, store) = try await Self.engine([
      Mission(id: "ma", coordinate: a, state: .accepted, workerID: "al"),
      Mission(id: "mb", coordinate: b, state: .accepted, workerID: "bo"),
    ])
    try await engine.perform(.start, on: "ma", at: .t(0))
    try await engine.perform(.start, on: "mb", at: .t(0))
    #expect(await engine.trackedMissions == ["al": "ma", "bo": "mb"])
    for second in 1...40 {
      // al enters at 8 m/s (inside after 32 s), bo at 10 m/s (after 26 s).
      let al = testFix(Double(second), Self.south(of: a, 300 - 8 * Double(second)))
      let bo = testFix(Double(second) + 0.5, Self.south(of: b, 305 - 10 * Double(second)))
      #expect(try await engine.ingest([al], worker: "al").accepted == 1)
      #expect(try await engine.ingest([bo], worker: "bo").accepted == 1)
    }
    let arrivals = await store.transitions.filter { $0.action == .arrive }
    #expect(arrivals.map(\.missionID) == ["mb", "ma"])
    #expect(arrivals.map(\.time) == [.t(26.5), .t(32)])
    #expect(arrivals.map(\.workerID) == ["bo", "al"])
    let events = await MissionEngineTests.drain(engine)
    let enters = events.filter { $0.type == "enter" }
    #expect(enters.map(\.fenceID) == ["mb", "ma"])
    #expect(enters.map(\.workerID) == ["bo", "al"])
    #expect(events.filter { $0.missionID == "ma" }.allSatisfy { $0.workerID == "al" })
  }

  @Test func requestsOfManyWorkersDecidedInOneJobAreDecidedAsEachAlone() async throws {
    // Two workers walking into their fences, a worker without a mission and an empty
    // request among them: one call of `ingest(_:)` with every request, against one
    // `ingest(_:worker:)` per request on a second engine.
    let a = sigtuna
    let b = offset(sigtuna, 90, 300)
    var requests: [(fixes: [Fix], worker: String)] = [([], "al")]
    for second in 1...40 {
      let al = testFix(Double(second), Self.south(of: a, 300 - 8 * Double(second)))
      let bo = testFix(Double(second) + 0.5, Self.south(of: b, 305 - 10 * Double(second)))
      // Every fifth of al's twice (a resent one), cy's never tracked.
      requests.append((second % 5 == 0 ? [al, al] : [al], "al"))
      requests.append(([bo], "bo"))
      if second % 10 == 0 { requests.append(([testFix(Double(second), a)], "cy")) }
    }
    var outcomes: [[String]] = []
    var arrivals: [[MissionTransition]] = []
    var enters: [[String?]] = []
    for together in [true, false] {
      let (engine, store) = try await Self.engine([
        Mission(id: "ma", coordinate: a, state: .accepted, workerID: "al"),
        Mission(id: "mb", coordinate: b, state: .accepted, workerID: "bo"),
      ])
      try await engine.perform(.start, on: "ma", at: .t(0))
      try await engine.perform(.start, on: "mb", at: .t(0))
      var outcome: [String] = []
      if together {
        for result in await engine.ingest(requests) {
          let decided = try result.get()
          outcome.append("\(decided.counts) \(decided.tracked)")
        }
      } else {
        for request in requests {
          let counts =
            request.fixes.isEmpty
            ? IngestCounts() : try await engine.ingest(request.fixes, worker: request.worker)
          let tracked = await engine.trackedMissionID(ofWorker: request.worker) != nil
          outcome.append("\(counts) \(tracked)")
        }
      }
      outcomes.append(outcome)
      arrivals.append(await store.transitions.filter { $0.action == .arrive })
      enters.append(
        await MissionEngineTests.drain(engine).filter { $0.type == "enter" }.map(\.fenceID))
    }
    #expect(outcomes[0] == outcomes[1])
    #expect(outcomes[0].count == requests.count)
    #expect(outcomes[0].filter { $0.contains("duplicates: 1") }.count == 8)
    #expect(arrivals[0] == arrivals[1] && arrivals[0].map(\.time) == [.t(26.5), .t(32)])
    #expect(enters[0] == enters[1] && enters[0] == ["mb", "ma"])
  }

  @Test func eachWorkersSourceRunsOnlyWhileItsMissionIsTracked() async throws {
    let sources = ["al": RecordingSource(), "bo": RecordingSource()]
    let store = InMemoryTrackingStore(missions: [
      Mission(id: "ma", coordinate: Self.place(0), state: .accepted, workerID: "al"),
      Mission(id: "mb", coordinate: Self.place(1), state: .accepted, workerID: "bo"),
    ])
    let (engine, _) = try await Self.engine([], store: store, sources: { sources[$0] })
    try await engine.perform(.start, on: "ma", at: .t(0))
    #expect(sources["al"]?.history == ["start"])
    #expect(sources["bo"]?.history == [])
    // Started by another process: bo's source opens at the next poll.
    await store.update([
      Mission(id: "mb", coordinate: Self.place(1), state: .active, workerID: "bo")
    ])
    try await waitUntil("bo's source") { sources["bo"]?.starts == 1 }
    #expect(await engine.isTracking(worker: "bo"))
    try await engine.perform(.cancel, on: "mb", at: .t(5))
    #expect(sources["bo"]?.history == ["start", "stop"])
    #expect(sources["al"]?.history == ["start"])
    #expect(await engine.trackedMissionID(ofWorker: "al") == "ma")
    #expect(await engine.trackedMissionID(ofWorker: "bo") == nil)
    // The first fix is delivered once its epoch is complete (the second arrives).
    #expect(sources["al"]?.send(.fix(testFix(1, Self.place(0)))) == true)
    #expect(sources["al"]?.send(.fix(testFix(2, Self.place(0)))) == true)
    try await waitUntil("al's fix") { await engine.lastFix(ofWorker: "al") != nil }
    #expect(await engine.lastFix(ofWorker: "al")?.time == .t(1))
    _ = await MissionEngineTests.drain(engine)
    #expect(sources["al"]?.history == ["start", "stop"])
  }

  @Test func aWatchAnnouncesEachEntryOnce() async throws {
    let (engine, store) = try await Self.engine([
      Mission(id: "near", coordinate: offset(sigtuna, 0, 100))
    ])
    try await engine.addWatch(
      Watch(id: "w1", coordinate: sigtuna, radiusMeters: 500, workerID: "bo"))
    #expect(await engine.watches().map(\.id) == ["w1"])
    #expect(await store.watches().map(\.id) == ["w1"])
    // Imported inside, imported outside, moved out and back in.
    let inside = Mission(id: "m1", coordinate: offset(sigtuna, 0, 200))
    let outside = Mission(id: "m2", coordinate: offset(sigtuna, 0, 900))
    await store.update([inside, outside])
    await engine.synchronize()
    await store.update([Mission(id: "m1", coordinate: offset(sigtuna, 0, 900))])
    await engine.synchronize()
    await store.update([inside])
    await engine.synchronize()
    #expect(try await engine.removeWatch(id: "w1"))
    await store.update([Mission(id: "m2", coordinate: sigtuna)])
    await engine.synchronize()
    let nearby = await MissionEngineTests.drain(engine).filter { $0.type == "mission_nearby" }
    #expect(nearby.map(\.missionID) == ["m1", "m1"])
    #expect(nearby.allSatisfy { $0.workerID == "bo" })
    #expect(await store.events.filter { $0.type == "mission_nearby" } == nearby)
  }

  // MARK: - Property: workers are independent

  /// One step of a worker's script.
  enum Step: Sendable {
    case act(MissionAction, String, at: Double)
    case fixes([Fix])
  }

  /// A random script for worker `index`: its two missions accepted, started, walked with
  /// random steps (some duplicated or out of order), stopped by submit or cancel, and a start
  /// of the second mission attempted while the first is tracked.
  static func script(_ index: Int, using random: inout SplitMix64) -> [Step] {
    let worker = "w\(index)"
    let first = "\(worker)-a"
    let second = "\(worker)-b"
    var steps: [Step] = [
      .act(.accept, first, at: 0), .act(.accept, second, at: 0), .act(.start, first, at: 1),
      .act(.start, second, at: 1),
    ]
    var time = 1.0
    var position = offset(place(index), 180, Double.random(in: 150...400, using: &random))
    for _ in 0..<Int.random(in: 1...6, using: &random) {
      var chunk: [Fix] = []
      for _ in 0..<Int.random(in: 1...8, using: &random) {
        time += Double(Int.random(in: 1...3, using: &random))
        let toward = position.distance(to: place(index)) > 5
        let bearing =
          toward
          ? (place(index).latitude > position.latitude ? 0.0 : 180.0)
          : Double.random(in: 0..<360, using: &random)
        position = offset(position, bearing, Double.random(in: 0...25, using: &random))
        chunk.append(testFix(time, position))
        if Int.random(in: 0..<10, using: &random) == 0 { chunk.append(testFix(time, position)) }
      }
      if chunk.count > 1, Bool.random(using: &random) { chunk.swapAt(0, chunk.count - 1) }
      steps.append(.fixes(chunk))
    }
    steps.append(.act(Bool.random(using: &random) ? .submit : .cancel, first, at: time + 1))
    steps.append(.act(.start, second, at: time + 2))
    steps.append(.fixes([testFix(time + 3, position), testFix(time + 4, place(index))]))
    return steps
  }

  static func missions(of indices: Range<Int>) -> [Mission] {
    indices.flatMap { index in
      ["a", "b"].map { suffix in
        Mission(id: "w\(index)-\(suffix)", coordinate: place(index), state: .open)
      }
    }
  }

  /// Runs `steps` of worker `worker` on `engine`; what each step answered, as text.
  static func run(_ step: Step, of worker: String, on engine: MissionEngine) async -> String {
    do {
      switch step {
      case .act(let action, let id, let time):
        let state = try await engine.perform(
          action, on: id, worker: action == .accept ? worker : nil, at: .t(time))
        return "\(action) \(id): \(state)"
      case .fixes(let fixes):
        return "\(try await engine.ingest(fixes, worker: worker))"
      }
    } catch {
      return "\(error)"
    }
  }

  @Test(arguments: [UInt64(1), 2, 3, 4])
  func eachWorkersEventsEqualThoseOfItsWalkAlone(_ seed: UInt64) async throws {
    var random = SplitMix64(seed: seed)
    let count = 4
    let scripts = (0..<count).map { Self.script($0, using: &random) }

    // All workers interleaved in one engine, in a random order that keeps each script's.
    let (together, _) = try await Self.engine(Self.missions(of: 0..<count))
    var next = Array(repeating: 0, count: count)
    var answers = Array(repeating: [String](), count: count)
    while let worker = (0..<count).filter({ next[$0] < scripts[$0].count }).randomElement(
      using: &random)
    {
      answers[worker].append(
        await Self.run(scripts[worker][next[worker]], of: "w\(worker)", on: together))
      next[worker] += 1
    }
    let all = await MissionEngineTests.drain(together)

    for worker in 0..<count {
      let (alone, _) = try await Self.engine(Self.missions(of: 0..<count))
      var answered: [String] = []
      for step in scripts[worker] {
        answered.append(await Self.run(step, of: "w\(worker)", on: alone))
      }
      let own = await MissionEngineTests.drain(alone)
      #expect(answered == answers[worker], "seed \(seed), worker \(worker)")
      #expect(all.filter { $0.workerID == "w\(worker)" } == own, "seed \(seed), worker \(worker)")
      #expect(own.contains { $0.type == "fix" }, "seed \(seed), worker \(worker)")
    }
  }
}
