import Foundation
import MissionTracking
import Testing

@Suite struct GeofenceEvaluatorTests {
  static let fence = Geofence(id: "m1", center: sigtuna, radiusMeters: 50)

  static func run(_ evaluator: inout GeofenceEvaluator, _ fixes: [Fix]) -> [TrackingEvent] {
    var events: [TrackingEvent] = []
    for fix in fixes { evaluator.evaluate(fix, into: &events) }
    return events
  }

  @Test func defaultExitMarginIsTwentyMetresOrAFifth() {
    #expect(Geofence(id: "a", center: sigtuna, radiusMeters: 50).exitMarginMeters == 20)
    #expect(Geofence(id: "a", center: sigtuna, radiusMeters: 300).exitMarginMeters == 60)
    #expect(Geofence(id: "a", center: sigtuna, radiusMeters: 300).exitDistanceMeters == 360)
  }

  @Test func enterNeedsAnAccurateEnoughFix() {
    var evaluator = GeofenceEvaluator(missionID: "m1", primary: Self.fence)
    let inside = offset(sigtuna, 0, 30)
    let events = Self.run(
      &evaluator,
      [
        testFix(0, offset(sigtuna, 0, 200)), testFix(1, inside, eph: 80),
        testFix(2, inside, eph: nil), testFix(3, inside, eph: 5),
      ])
    #expect(events.map(\.type) == ["enter"])
    #expect(events[0].time == .t(2))
    #expect(evaluator.state(of: "m1")?.insideSince == .t(2))
  }

  @Test func exitNeedsTheMarginAndDwellIsReportedOnce() throws {
    var evaluator = GeofenceEvaluator(
      missionID: "m1", primary: Self.fence, configuration: try .init(dwellSeconds: 30))
    let distances: [Double] = [10, 55, 69.9, 40, 40, 40, 70.5, 80]
    let times: [Double] = [0, 10, 20, 30, 40, 50, 60, 70]
    let fixes = zip(times, distances).map { testFix($0, offset(sigtuna, 90, $1)) }
    let events = Self.run(&evaluator, fixes)
    #expect(events.map(\.type) == ["enter", "dwell", "exit"])
    #expect(events.map(\.time) == [.t(0), .t(30), .t(60)])
    if case .dwell(_, let seconds) = events[1].kind { #expect(seconds == 30) }
    #expect(evaluator.state(of: "m1") == FenceState())
  }

  @Test func aFastPassBetweenTwoFixesIsCrossed() throws {
    var evaluator = GeofenceEvaluator(missionID: "m1", primary: Self.fence)
    // 200 m west to 200 m east, 10 m north of the centre, in one step of 10 s.
    let north = offset(sigtuna, 0, 10)
    let events = Self.run(
      &evaluator, [testFix(0, offset(north, 270, 200)), testFix(10, offset(north, 90, 200))])
    #expect(events.map(\.type) == ["crossed"])
    guard case .crossed(let id, let closest) = events[0].kind else { return }
    #expect(id == "m1")
    #expect(abs(closest - 10) < 0.01)
    #expect(abs(events[0].time.timeIntervalSince(.t(5))) < 0.01)
    // Passing 60 m away is not a crossing.
    var far = GeofenceEvaluator(missionID: "m1", primary: Self.fence)
    let wide = offset(sigtuna, 0, 60)
    #expect(
      Self.run(&far, [testFix(0, offset(wide, 270, 200)), testFix(10, offset(wide, 90, 200))])
        .isEmpty)
  }

  @Test func closestApproachMatchesDenseSampling() {
    var rng = SplitMix64(seed: 3)
    for _ in 0..<300 {
      let center = Coordinate(
        uncheckedLatitude: Double.random(in: -80...80, using: &rng),
        longitude: Double.random(in: -180...180, using: &rng))
      let a = offset(
        center, Double.random(in: 0..<360, using: &rng), Double.random(in: 0...3000, using: &rng))
      let b = offset(
        a, Double.random(in: 0..<360, using: &rng), Double.random(in: 1...3000, using: &rng))
      let approach = center.closestApproach(onSegmentFrom: a, to: b)
      var best = Double.infinity
      let bearing = a.initialBearingDegrees(to: b)
      let length = a.distance(to: b)
      for i in 0...4000 {
        best = min(best, center.distance(to: offset(a, bearing, length * Double(i) / 4000)))
      }
      #expect(abs(approach.distanceMeters - best) < 0.05 + length * 1e-6)
      #expect(approach.fraction >= 0 && approach.fraction <= 1)
    }
  }

  @Test func leavingOneFenceForAnotherExitsBeforeEntering() {
    let a = Geofence(id: "b-first-by-name", center: sigtuna, radiusMeters: 40)
    let b = Geofence(id: "a-second-by-name", center: offset(sigtuna, 90, 100), radiusMeters: 40)
    var evaluator = GeofenceEvaluator(missionID: "m", primary: a, others: [b])
    let events = Self.run(
      &evaluator,
      [
        testFix(0, offset(sigtuna, 90, 30)),  // inside A
        testFix(10, offset(sigtuna, 90, 55)),  // still inside A (hysteresis), 45 m from B
        testFix(20, offset(sigtuna, 90, 68)),  // beyond A's 60 m, 32 m from B
      ])
    #expect(
      events.map { "\($0.type) \($0.fenceID!)" } == [
        "enter b-first-by-name", "exit b-first-by-name", "enter a-second-by-name",
      ])
  }

  @Test func resumedInsideGivesNoDuplicateEnter() {
    let stored = FenceState(isInside: true, insideSince: .t(0), dwellReported: false)
    var evaluator = GeofenceEvaluator(
      missionID: "m1", primary: Self.fence, states: ["m1": stored])
    let events = Self.run(
      &evaluator, (0..<15).map { testFix(50 + Double($0), offset(sigtuna, 0, 5)) })
    // No enter; the stay continues from the stored time, so the dwell comes at 60 s.
    #expect(events.map(\.type) == ["dwell"])
    #expect(events[0].time == .t(60))
  }

  @Test func worksAcrossTheAntimeridian() {
    let center = Coordinate(uncheckedLatitude: -16.5, longitude: 180)
    let fence = Geofence(id: "fiji", center: center, radiusMeters: 100)
    let near = Geofence(id: "near", center: offset(center, 270, 30), radiusMeters: 20)
    var evaluator = GeofenceEvaluator(
      missionID: "x", primary: Geofence(id: "x", center: sigtuna, radiusMeters: 50),
      others: [fence, near])
    let events = Self.run(
      &evaluator,
      [
        testFix(0, offset(center, 90, 500)), testFix(10, offset(center, 90, 60)),
        testFix(20, offset(center, 270, 25)),
      ])
    #expect(events.map { "\($0.type) \($0.fenceID!)" } == ["enter fiji", "enter near"])
  }

  /// The prefiltered evaluator must give exactly what measuring every fence gives.
  @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
  func prefilterMatchesMeasuringEveryFence(seed: UInt64) throws {
    var rng = SplitMix64(seed: seed)
    let origin = Coordinate(
      uncheckedLatitude: Double.random(in: -70...70, using: &rng),
      longitude: Double.random(in: -179...179, using: &rng))
    let fences = (0..<120).map { i in
      Geofence(
        id: "f\(i)",
        center: offset(
          origin, Double.random(in: 0..<360, using: &rng), Double.random(in: 0...2000, using: &rng)),
        radiusMeters: Double.random(in: 5...150, using: &rng))
    }
    var fast = GeofenceEvaluator(
      missionID: "m", primary: fences[0], others: Array(fences.dropFirst()),
      configuration: try .init(dwellSeconds: 20))
    var slow = fast
    slow.usesPrefilter = false
    var p = origin
    var fastEvents: [TrackingEvent] = []
    var slowEvents: [TrackingEvent] = []
    for i in 0..<3000 {
      let step = Double.random(in: 0...1, using: &rng) < 0.05 ? 400.0 : 15.0
      p = offset(
        p, Double.random(in: 0..<360, using: &rng), Double.random(in: 0...step, using: &rng))
      if origin.distance(to: p) > 2500 { p = origin }
      let fix = testFix(Double(i), p, eph: Double.random(in: 2...200, using: &rng))
      fast.evaluate(fix, into: &fastEvents)
      slow.evaluate(fix, into: &slowEvents)
      if i == 1500 {
        // Changing the neighbourhood keeps states.
        let subset = Array(fences.dropFirst().filter { _ in Bool.random(using: &rng) })
        fast.replaceOtherFences(subset)
        slow.replaceOtherFences(subset)
      }
    }
    if let first = fastEvents.indices.first(where: {
      $0 >= slowEvents.count || fastEvents[$0] != slowEvents[$0]
    }) {
      Issue.record(
        "first difference at \(first): \(fastEvents[first]) vs \(first < slowEvents.count ? "\(slowEvents[first])" : "none")"
      )
    }
    #expect(fastEvents.count == slowEvents.count)
    #expect(fastEvents.count > 50)
    #expect(fast.states == slow.states)
  }
}
