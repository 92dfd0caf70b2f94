import Foundation
import MissionTracking
import Testing
import TextRules

/// Runs every generated scenario through the pipeline and compares with the ground truth that
/// `Tools/gen-scenarios` computed with its own model.
@Suite struct ScenarioTests {
  /// One event reduced to what the ground truth states.
  struct Observed: Equatable, CustomStringConvertible {
    var type: String
    var time: Date
    var fenceID: String?
    var initial: Bool?
    var row: Int?
    var number: Double?

    var description: String {
      "\(type)@\(UTCTime.format(time))\(fenceID.map { " " + $0 } ?? "")"
        + "\(initial.map { " initial=\($0)" } ?? "")\(row.map { " row \($0)" } ?? "")"
    }
  }

  static func observe(_ events: [TrackingEvent], trace: ScenarioTrace) -> [Observed] {
    events.compactMap { event in
      switch event.kind {
      case .fix(let fix, _, let travelled):
        let row = trace.fixes.firstIndex { $0.time == fix.time && $0.coordinate == fix.coordinate }
        return Observed(type: "fix", time: event.time, row: row, number: travelled)
      case .enter(let id, _, let initial):
        return Observed(type: "enter", time: event.time, fenceID: id, initial: initial)
      case .exit(let id, _): return Observed(type: "exit", time: event.time, fenceID: id)
      case .dwell(let id, let seconds):
        return Observed(type: "dwell", time: event.time, fenceID: id, number: seconds)
      case .crossed(let id, let closest):
        return Observed(type: "crossed", time: event.time, fenceID: id, number: closest)
      case .source(.gap, _): return Observed(type: "gap", time: event.time)
      case .rejected, .state, .source, .nearby: return nil
      }
    }
  }

  static func expectedEvents(_ trace: ScenarioTrace) -> [Observed] {
    trace.expected.events.map { e in
      let number: Double? =
        switch e.type {
        case "fix": e.travelledM
        case "dwell": e.dwellS
        case "crossed": e.closestM
        default: nil
        }
      return Observed(
        type: e.type, time: UTCTime.parse(e.time)!.date, fenceID: e.fenceId,
        initial: e.type == "enter" ? e.initial : nil, row: e.row, number: number)
    }
  }

  static func run(_ trace: ScenarioTrace) throws -> (TrackingPipeline, [TrackingEvent]) {
    let missions = trace.missions
    var pipeline = TrackingPipeline(
      mission: missions[0], nearbyFences: missions.dropFirst().map(Geofence.init(mission:)),
      configuration: try trace.configuration)
    var events: [TrackingEvent] = []
    for fix in trace.fixes { pipeline.process(fix, into: &events) }
    pipeline.finish(into: &events)
    return (pipeline, events)
  }

  @Test(arguments: ScenarioTrace.names)
  func scenarioMatchesItsGroundTruth(_ name: String) throws {
    let trace = try ScenarioTrace(name)
    let (pipeline, events) = try Self.run(trace)
    let observed = Self.observe(events, trace: trace)
    let expected = Self.expectedEvents(trace)

    // Same events, same order, same fences and flags.
    #expect(observed.map(\.type) == expected.map(\.type), "\(name)")
    #expect(observed.map(\.fenceID) == expected.map(\.fenceID), "\(name)")
    #expect(observed.map(\.initial) == expected.map(\.initial), "\(name)")
    #expect(observed.map(\.row) == expected.map(\.row), "\(name)")
    guard observed.count == expected.count else { return }
    for (o, e) in zip(observed, expected) {
      // Interpolated `crossed` times are compared to the millisecond the JSON keeps.
      #expect(abs(o.time.timeIntervalSince(e.time)) <= 0.001, "\(name): \(o) vs \(e)")
      if let a = o.number, let b = e.number {
        let tolerance = o.type == "crossed" ? 0.01 : 1e-6
        #expect(abs(a - b) <= tolerance, "\(name): \(o) \(a) vs \(b)")
      }
    }

    // Delivered fixes, travelled distance and distance to the mission.
    let delivered = observed.filter { $0.type == "fix" }.compactMap(\.row)
    #expect(delivered == trace.expected.deliveredRows, "\(name)")
    #expect(abs(pipeline.travelledMeters - trace.expected.travelledM) < 1e-6, "\(name)")
    let distances = events.compactMap { event -> Double? in
      if case .fix(_, let distance, _) = event.kind { return distance }
      return nil
    }
    let expectedDistances = trace.expected.events.compactMap(\.distanceM)
    #expect(distances.count == expectedDistances.count)
    for (a, b) in zip(distances, expectedDistances) { #expect(abs(a - b) < 1e-6, "\(name)") }

    // Rejections, counted by reason, in the summary and as `rejected` events.
    var counted: [String: Int] = [:]
    for (reason, count) in pipeline.summary.rejectionsInOrder { counted[reason.rawValue] = count }
    #expect(counted == trace.expected.rejected, "\(name)")
    var summarized: [String: Int] = [:]
    for event in events {
      if case .rejected(let reason, let count) = event.kind { summarized[reason] = count }
    }
    #expect(summarized == trace.expected.rejected, "\(name)")
  }

  @Test(arguments: ScenarioTrace.names, [1, 64])
  func enginePublishesThePipelineEventsInFixTimeOrder(_ name: String, batchSize: Int)
    async throws
  {
    let trace = try ScenarioTrace(name)
    // The engine's events carry the tracked worker, the pipeline's none.
    let pipelineEvents = try Self.run(trace).1.map {
      var event = $0
      event.workerID = Worker.localID
      return event
    }
    var mission = trace.missions[0]
    mission.state = .accepted
    let engine = MissionEngine(
      store: InMemoryTrackingStore(
        missions: [mission]
          + trace.missions.dropFirst().map {
            var other = $0
            other.state = .open
            return other
          }),
      source: ReplaySource(trace.fixes.map(SourceReport.fix), batchSize: batchSize),
      configuration: .init(pipeline: try trace.configuration))
    try await engine.open()
    try await engine.perform(.start, on: mission.id, at: .t(-1))
    _ = await engine.waitUntilTrackingEnds()
    try await engine.perform(.submit, on: mission.id, at: .t(10_000))
    await engine.shutdown()
    var published: [TrackingEvent] = []
    for await event in engine.events { published.append(event) }

    // The engine adds lifecycle events and the end of the source, nothing else.
    let withoutLifecycle = published.filter {
      if case .state = $0.kind { return false }
      if case .source(.ended, _) = $0.kind { return false }
      return true
    }
    #expect(withoutLifecycle == pipelineEvents, "\(name)")
    #expect(zip(published, published.dropFirst()).allSatisfy { $0.time <= $1.time }, "\(name)")
    // Arrival follows the first enter of the mission's own fence, at its fix time.
    let states = published.compactMap { event -> (MissionState, MissionState, Date)? in
      if case .state(let from, let to) = event.kind { return (from, to, event.time) }
      return nil
    }
    let firstEnter = pipelineEvents.first { $0.type == "enter" && $0.fenceID == mission.id }
    if let firstEnter {
      #expect(
        states.map { [$0.0, $0.1] } == [
          [.accepted, .active], [.active, .arrived], [.arrived, .submitted],
        ])
      #expect(states[1].2 == firstEnter.time)
      let enterIndex = published.firstIndex(of: firstEnter)!
      #expect(published[enterIndex + 1].kind == .state(from: .active, to: .arrived))
    } else {
      #expect(states.map { [$0.0, $0.1] } == [[.accepted, .active], [.active, .submitted]])
    }
  }
}
