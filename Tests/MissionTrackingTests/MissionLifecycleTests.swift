import Foundation
import MissionTracking
import Testing

@Suite struct MissionLifecycleTests {
  /// DESIGN.md §2 written out by hand: (state, action) → target, for moves that change state.
  static let moves: [MissionState: [MissionAction: MissionState]] = [
    .open: [.accept: .accepted, .cancel: .cancelled, .expire: .expired],
    .accepted: [.start: .active, .cancel: .cancelled, .expire: .expired],
    .active: [.arrive: .arrived, .submit: .submitted, .cancel: .cancelled],
    .arrived: [.submit: .submitted, .cancel: .cancelled],
    .submitted: [.complete: .completed],
    .completed: [:], .cancelled: [:], .expired: [:],
  ]
  /// Actions that are allowed and change nothing (idempotent repeats).
  static let idempotent: Set<[String]> = [
    ["accepted", "accept"], ["active", "start"], ["arrived", "start"], ["arrived", "arrive"],
    ["submitted", "submit"], ["completed", "complete"], ["cancelled", "cancel"],
    ["expired", "expire"],
  ]

  static let allPairs: [(MissionState, MissionAction)] = MissionState.allCases.flatMap { state in
    MissionAction.allCases.map { (state, $0) }
  }

  @Test(arguments: allPairs)
  func everyStateAndActionFollowsTheDesignTable(_ state: MissionState, _ action: MissionAction)
    throws
  {
    let mission = Mission(id: "m1", coordinate: sigtuna, state: state)
    var lifecycle = MissionLifecycle(mission: mission)
    let time = Date.t(42)
    if let target = Self.moves[state]?[action] {
      let effects = try lifecycle.apply(action, at: time)
      #expect(lifecycle.state == target)
      // An accept records its worker (`local` when none is named); other actions keep the
      // mission's (none here).
      let worker = action == .accept ? Worker.localID : nil
      #expect(
        lifecycle.transitions == [
          MissionTransition(
            missionID: "m1", action: action, from: state, to: target, time: time, workerID: worker)
        ])
      let event = LifecycleEffect.emit(
        TrackingEvent(
          time: time, missionID: "m1", workerID: worker, kind: .state(from: state, to: target)))
      if !state.isTracking && target.isTracking {
        #expect(effects == [event, .startTracking])
      } else if state.isTracking && !target.isTracking {
        #expect(effects == [.stopTracking, event])
      } else {
        #expect(effects == [event])
      }
    } else if Self.idempotent.contains([state.rawValue, action.rawValue]) {
      #expect(try lifecycle.apply(action, at: time) == [])
      #expect(lifecycle.state == state)
      #expect(lifecycle.transitions.isEmpty)
    } else {
      let before = lifecycle
      #expect(
        throws: TrackingError.illegalTransition(missionID: "m1", state: state, action: action)
      ) { try lifecycle.apply(action, at: time) }
      #expect(lifecycle == before)
    }
  }

  @Test func illegalTransitionNamesMissionStateAndAction() {
    let error = TrackingError.illegalTransition(missionID: "sig-101", state: .open, action: .submit)
    #expect(error.description == "cannot submit mission sig-101: it is open")
  }

  @Test func onlyActiveAndArrivedTrack() {
    #expect(MissionState.allCases.filter(\.isTracking) == [.active, .arrived])
  }

  @Test func aFullRunRecordsEveryTransitionWithItsTime() throws {
    var lifecycle = MissionLifecycle(mission: Mission(id: "m", coordinate: sigtuna))
    let actions: [MissionAction] = [.accept, .start, .start, .arrive, .submit, .submit, .complete]
    for (i, action) in actions.enumerated() { try lifecycle.apply(action, at: .t(Double(i))) }
    #expect(
      lifecycle.transitions.map(\.to) == [.accepted, .active, .arrived, .submitted, .completed])
    #expect(lifecycle.transitions.map(\.time) == [.t(0), .t(1), .t(3), .t(4), .t(6)])
  }

  @Test func expiresOnlyAfterTheDeadlineAndOnlyBeforeStarting() {
    var open = MissionLifecycle(
      mission: Mission(id: "m", coordinate: sigtuna, deadline: .t(100), state: .accepted))
    #expect(open.expireIfDue(at: .t(100)) == [])
    #expect(open.state == .accepted)
    #expect(open.expireIfDue(at: .t(101)).count == 1)
    #expect(open.state == .expired)
    #expect(open.expireIfDue(at: .t(200)) == [])

    var active = MissionLifecycle(
      mission: Mission(id: "m", coordinate: sigtuna, deadline: .t(100), state: .active))
    #expect(active.expireIfDue(at: .t(500)) == [])
    #expect(active.state == .active)
    var noDeadline = MissionLifecycle(mission: Mission(id: "m", coordinate: sigtuna))
    #expect(noDeadline.expireIfDue(at: .t(1e9)) == [])
  }

  @Test func aStaleTransitionIsNotCommitted() throws {
    var lifecycle = MissionLifecycle(mission: Mission(id: "m", coordinate: sigtuna))
    let accept = try #require(try lifecycle.transition(for: .accept, at: .t(0)))
    let cancel = try #require(try lifecycle.transition(for: .cancel, at: .t(0)))
    #expect(lifecycle.commit(cancel).count == 1)
    #expect(lifecycle.commit(accept) == [])
    #expect(lifecycle.state == .cancelled)
  }
}
