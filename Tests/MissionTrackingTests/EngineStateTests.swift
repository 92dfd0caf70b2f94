import Foundation
import Testing

@testable import MissionTracking

/// The engine's decisions without an actor, a store or a source: inputs in, actions out.
@Suite struct EngineStateTests {
  static let configuration = MissionEngine.Configuration()

  /// A state holding `missions`, with the actions `open()` would take.
  static func loaded(_ missions: [Mission], watches: [Watch] = []) throws -> (
    EngineState, [EngineAction]
  ) {
    var state = EngineState(configuration: configuration, directory: MissionDirectory())
    let actions = try state.load(missions, watches: watches)
    return (state, actions)
  }

  /// Applies `action` as the executor does: finishing a stopped session first, then the
  /// transition, each commit succeeding. Returns every action, in order.
  static func perform(
    _ state: inout EngineState, _ action: MissionAction, on id: String, worker: String? = nil,
    at time: Date
  ) throws -> [EngineAction] {
    var done = try execute(&state, state.prepare(action, on: id, worker: worker, at: time))
    if let transition = try state.transition(action, on: id, worker: worker, at: time) {
      done += try execute(&state, [.flush, .commit(transition)])
    }
    return done
  }

  /// Executes `actions` against a store that accepts everything: commits feed back.
  static func execute(_ state: inout EngineState, _ actions: [EngineAction]) throws
    -> [EngineAction]
  {
    var done: [EngineAction] = []
    for action in actions {
      done.append(action)
      if case .commit(let transition) = action {
        done += try execute(&state, state.committed(transition))
      }
    }
    return done
  }

  static func events(_ actions: [EngineAction]) -> [TrackingEvent] {
    actions.flatMap { action -> [TrackingEvent] in
      switch action {
      case .record(let batch): batch.events
      case .recordEvents(let events), .publish(let events): events
      default: []
      }
    }
  }

  static func commits(_ actions: [EngineAction]) -> [MissionTransition] {
    actions.compactMap {
      if case .commit(let transition) = $0 { return transition }
      return nil
    }
  }

  static func generation(_ actions: [EngineAction], of worker: String) -> Int? {
    for action in actions {
      if case .openSource(worker, let generation) = action { return generation }
    }
    return nil
  }

  /// Fixes every second from `south` metres south of the mission to `north` metres north.
  static func walk(from south: Double, to north: Double, step: Double = 10, t0: Double = 1)
    -> [SourceReport]
  {
    stride(from: -south, through: north, by: step).enumerated().map { i, y in
      let place = y < 0 ? offset(sigtuna, 180, -y) : offset(sigtuna, 0, y)
      return .fix(testFix(t0 + Double(i), place))
    }
  }

  // MARK: - Arrival

  struct ArrivalCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// Where the walk ends, metres north of the mission (negative: south).
    let endNorth: Double
    /// The index of the fix whose time the arrival takes, nil for none.
    let arrivalFix: Int?
    var testDescription: String { name }
  }

  static let arrivalCases = [
    // 305 m south to 45 m south: the fence (50 m) is entered on the last fix, which the
    // cleaner holds back until the stop releases it.
    ArrivalCase(name: "on the last fix", endNorth: -40, arrivalFix: 26),
    ArrivalCase(name: "mid-walk", endNorth: 100, arrivalFix: 26),
    ArrivalCase(name: "never", endNorth: -60, arrivalFix: nil),
  ]

  @Test(arguments: arrivalCases)
  func arrivalIsDecidedAtTheFixTimeOfTheFirstEnter(_ test: ArrivalCase) throws {
    var (state, _) = try Self.loaded([Mission(id: "m1", coordinate: sigtuna, state: .accepted)])
    let start = try Self.perform(&state, .start, on: "m1", at: .t(0))
    let generation = try #require(Self.generation(start, of: Worker.localID))
    let reports = Self.walk(from: 305, to: test.endNorth)
    var done = try Self.execute(
      &state, state.reports(reports, worker: Worker.localID, generation: generation))
    done += try Self.perform(&state, .submit, on: "m1", at: .t(1000))
    let arrivals = Self.commits(done).filter { $0.action == .arrive }
    if let index = test.arrivalFix {
      guard case .fix(let fix) = reports[index] else { return }
      #expect(arrivals.map(\.time) == [fix.time])
      #expect(Self.commits(done).last?.from == .arrived)
      // Recorded before it is committed: the enter's batch, then a flush, then the commit.
      let commit = try #require(done.firstIndex(of: .commit(arrivals[0])))
      #expect(done[commit - 1] == .flush)
      guard case .record(let batch) = done[commit - 2] else {
        Issue.record("no batch before the arrival")
        return
      }
      #expect(batch.events.contains { $0.type == "enter" && $0.fenceID == "m1" })
    } else {
      #expect(arrivals.isEmpty)
      #expect(Self.commits(done).last?.from == .active)
    }
    #expect(state.sessions.isEmpty)
    #expect(done.contains(.closeSource(worker: Worker.localID)))
  }

  // MARK: - Resume

  @Test func aResumeWithStoredFenceStatesEntersNoSecondTime() throws {
    let mission = Mission(id: "m1", coordinate: sigtuna, state: .arrived)
    var (state, opening) = try Self.loaded([mission])
    #expect(opening == [.resume(worker: Worker.localID, missionID: "m1")])
    let inside = FenceState(isInside: true, insideSince: .t(0), dwellReported: true)
    let resume = TrackingPipeline.Resume(
      fenceStates: ["m1": inside], lastDelivered: testFix(0, sigtuna), travelledMeters: 42)
    let start = state.startSession(missionID: "m1", resume: resume, startTime: nil)
    let generation = try #require(Self.generation(start, of: Worker.localID))
    // Still inside, then out beyond the exit margin.
    let reports: [SourceReport] = [
      .fix(testFix(1, offset(sigtuna, 0, 5))), .fix(testFix(2, offset(sigtuna, 0, 10))),
      .fix(testFix(10, offset(sigtuna, 0, 150))), .fix(testFix(20, offset(sigtuna, 0, 160))),
    ]
    let done = try Self.execute(
      &state, state.reports(reports, worker: Worker.localID, generation: generation))
    let kinds = Self.events(done).map(\.type)
    #expect(!kinds.contains("enter"))
    #expect(kinds.filter { $0 == "exit" }.count == 1)
    #expect(state.sessions[Worker.localID]?.pipeline.travelledMeters ?? 0 > 42)
  }

  // MARK: - Other processes

  @Test func aStopFromAnotherProcessEndsTheSessionAndDropsLaterReports() throws {
    var (state, _) = try Self.loaded([
      Mission(id: "m1", coordinate: sigtuna, state: .active, workerID: "bo")
    ])
    let start = state.startSession(missionID: "m1", resume: nil, startTime: nil)
    let generation = try #require(Self.generation(start, of: "bo"))
    var stopped = Mission(id: "m1", coordinate: sigtuna, state: .submitted, workerID: "bo")
    let actions = state.apply(MissionChanges(token: 2, missions: [stopped]), now: .t(5))
    #expect(
      actions == [
        .closeSource(worker: "bo"), .endTracking(worker: "bo", .missionStopped(.submitted)),
      ]
    )
    #expect(state.trackedMissions.isEmpty)
    #expect(state.reports(Self.walk(from: 100, to: 0), worker: "bo", generation: generation) == [])
    // Made tracked again elsewhere (an import of an active mission): resumed from the store.
    stopped.state = .active
    #expect(
      state.apply(MissionChanges(token: 3, missions: [stopped]), now: .t(6)) == [
        .resume(worker: "bo", missionID: "m1")
      ])
  }

  // MARK: - One tracked mission per worker

  struct StartCase: Sendable, CustomTestStringConvertible {
    let name: String
    let firstWorker: String
    let secondWorker: String
    let busy: Bool
    var testDescription: String { name }
  }

  static let startCases = [
    StartCase(name: "same worker", firstWorker: "al", secondWorker: "al", busy: true),
    StartCase(name: "other worker", firstWorker: "al", secondWorker: "bo", busy: false),
    StartCase(
      name: "local and a named worker", firstWorker: Worker.localID, secondWorker: "bo",
      busy: false),
  ]

  @Test(arguments: startCases)
  func oneTrackedMissionPerWorker(_ test: StartCase) throws {
    var (state, _) = try Self.loaded([
      Mission(id: "m1", coordinate: sigtuna, state: .open),
      Mission(id: "m2", coordinate: offset(sigtuna, 90, 500), state: .open),
    ])
    _ = try Self.perform(&state, .accept, on: "m1", worker: test.firstWorker, at: .t(0))
    _ = try Self.perform(&state, .accept, on: "m2", worker: test.secondWorker, at: .t(1))
    _ = try Self.perform(&state, .start, on: "m1", at: .t(2))
    if test.busy {
      #expect(
        throws: TrackingError.workerBusy(
          workerID: test.secondWorker, tracked: "m1", requested: "m2")
      ) { _ = try Self.perform(&state, .start, on: "m2", at: .t(3)) }
      #expect(state.lifecycles["m2"]?.state == .accepted)
      #expect(state.trackedMissions == [test.firstWorker: "m1"])
    } else {
      let started = try Self.perform(&state, .start, on: "m2", at: .t(3))
      #expect(Self.generation(started, of: test.secondWorker) != nil)
      #expect(state.trackedMissions == [test.firstWorker: "m1", test.secondWorker: "m2"])
      #expect(Set(state.sessions.keys) == [test.firstWorker, test.secondWorker])
    }
  }

  // MARK: - Accept by a worker

  @Test func acceptRecordsTheWorkerAndRefusesAnotherOne() throws {
    var (state, _) = try Self.loaded([Mission(id: "m1", coordinate: sigtuna)])
    let accepted = try Self.perform(&state, .accept, on: "m1", worker: "bo", at: .t(0))
    #expect(Self.commits(accepted).map(\.workerID) == ["bo"])
    #expect(Self.events(accepted).map(\.workerID) == ["bo"])
    #expect(state.lifecycles["m1"]?.mission.workerID == "bo")
    // Again by the same worker, or naming none: nothing changes.
    #expect(try Self.perform(&state, .accept, on: "m1", worker: "bo", at: .t(1)) == [])
    #expect(try Self.perform(&state, .accept, on: "m1", at: .t(1)) == [])
    // By another worker: refused naming both, and the mission keeps its worker.
    #expect(
      throws: TrackingError.acceptedByAnother(missionID: "m1", acceptedBy: "bo", requestedBy: "al")
    ) { _ = try Self.perform(&state, .accept, on: "m1", worker: "al", at: .t(2)) }
    #expect(
      TrackingError.acceptedByAnother(missionID: "m1", acceptedBy: "bo", requestedBy: "al")
        .description == "cannot accept mission m1 for worker al: worker bo accepted it")
    #expect(state.lifecycles["m1"]?.mission.workerID == "bo")
    // Later transitions and the session's events carry the mission's worker.
    let started = try Self.perform(&state, .start, on: "m1", at: .t(3))
    #expect(Self.events(started).map(\.workerID) == ["bo"])
    let generation = try #require(Self.generation(started, of: "bo"))
    let done = try Self.execute(
      &state, state.reports(Self.walk(from: 100, to: 0), worker: "bo", generation: generation))
    #expect(!Self.events(done).isEmpty)
    #expect(Self.events(done).allSatisfy { $0.workerID == "bo" })
  }

  // MARK: - Pushed fixes

  @Test func pushedFixesOutsideATrackedMissionAreUntracked() throws {
    var (state, _) = try Self.loaded([Mission(id: "m1", coordinate: sigtuna, state: .accepted)])
    let early = [testFix(1, offset(sigtuna, 0, 300))]
    #expect(state.ingest(early, worker: Worker.localID).untracked == 1)
    _ = try Self.perform(&state, .start, on: "m1", at: .t(10))
    // Out of order in the request, one before the start: sorted, the early one dropped.
    let fixes = [
      testFix(12, offset(sigtuna, 180, 280)), testFix(5, offset(sigtuna, 180, 300)),
      testFix(11, offset(sigtuna, 180, 290)),
    ]
    let (actions, processed, untracked) = state.ingest(fixes, worker: Worker.localID)
    #expect(processed == 2)
    #expect(untracked == 1)
    #expect(state.ingest(fixes, worker: "bo").untracked == 3)
    let times = Self.events(try Self.execute(&state, actions)).map(\.time)
    #expect(times == [.t(11)])  // 12 s is held back until its epoch completes
  }

  // MARK: - Watches

  struct WatchCase: Sendable, CustomTestStringConvertible {
    let name: String
    /// The mission's place at each step, metres north of the watch's centre; nil: removed.
    let places: [Double?]
    let state: MissionState
    let events: Int
    var testDescription: String { name }
  }

  static let watchCases = [
    WatchCase(name: "inside", places: [100], state: .open, events: 1),
    WatchCase(name: "outside", places: [600], state: .open, events: 0),
    WatchCase(name: "on the boundary", places: [500], state: .open, events: 1),
    WatchCase(name: "moving within", places: [100, 200, 300], state: .open, events: 1),
    WatchCase(name: "out and back in", places: [100, 900, 100], state: .open, events: 2),
    WatchCase(
      name: "removed and imported again", places: [100, nil, 100], state: .open, events: 2),
    WatchCase(name: "not in the watched state", places: [100], state: .accepted, events: 0),
  ]

  @Test(arguments: watchCases)
  func aMissionEnteringAWatchRecordsOneEventPerEntry(_ test: WatchCase) throws {
    let watch = Watch(
      id: "w1", coordinate: sigtuna, radiusMeters: 500, workerID: "bo", state: .open)
    var (state, _) = try Self.loaded([], watches: [watch])
    var events: [TrackingEvent] = []
    for (step, place) in test.places.enumerated() {
      let changes: MissionChanges
      if let place {
        let mission = Mission(id: "m1", coordinate: offset(sigtuna, 0, place), state: test.state)
        changes = MissionChanges(token: Int64(step + 1), missions: [mission])
      } else {
        changes = MissionChanges(token: Int64(step + 1), missions: [], removedIDs: ["m1"])
      }
      events += Self.events(state.apply(changes, now: .t(Double(step))))
    }
    #expect(events.count == test.events)
    #expect(events.allSatisfy { $0.type == "mission_nearby" && $0.workerID == "bo" })
    if let first = events.first, case .nearby(let id, let distance) = first.kind {
      #expect(id == "w1")
      #expect(abs(distance - (test.places[0] ?? 0)) < 0.01)
    }
  }

  @Test func aNewWatchStartsWithItsResultSetAndNoEvents() throws {
    var (state, _) = try Self.loaded([Mission(id: "m1", coordinate: sigtuna)])
    state.addWatch(Watch(id: "w1", coordinate: sigtuna, radiusMeters: 100))
    #expect(state.watchBook.members(of: "w1") == ["m1"])
    // A change that keeps it inside makes no event; accepting it takes it out of the set.
    let moved = Mission(id: "m1", coordinate: offset(sigtuna, 0, 20))
    #expect(Self.events(state.apply(MissionChanges(token: 2, missions: [moved]), now: .t(1))) == [])
    _ = try Self.perform(&state, .accept, on: "m1", at: .t(2))
    #expect(state.watchBook.members(of: "w1").isEmpty)
  }
}
