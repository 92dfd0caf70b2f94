import Foundation
import MissionTracking

/// Replays a recorded trace through the engine with an in-memory store, on the trace's own
/// clock: the one call a test suite needs to assert on a mission's events.
///
/// ```swift
/// let outcome = try await TraceReplay.run(
///   path: "Fixtures/walk.gpx",
///   mission: Mission(id: "shop", coordinate: try Coordinate(latitude: 59.61708, longitude: 17.72185)))
/// #expect(outcome.arrivalTime == ISO8601DateFormatter().date(from: "2026-05-04T10:12:52Z"))
/// #expect(outcome.deliveredFixes == 112)
/// ```
///
/// The mission is accepted (when open) and started at the first fix's time (or `startAt`),
/// tracked through exactly the pipeline `missiontrack replay` uses, until the trace ends;
/// it is not submitted. Nothing touches the wall clock or a database, so the same trace and
/// faults give the same outcome every time.
public enum TraceReplay {
  /// What a replay did.
  public struct Outcome: Sendable {
    /// Every event, in order, as `missiontrack replay` prints them.
    public var events: [TrackingEvent]
    /// The mission in its final state (`arrived` when the worker got there).
    public var mission: Mission
    /// Fix time of the arrival (the first enter of the mission's own fence), if any.
    public var arrivalTime: Date?
    /// How many fixes were delivered (recorded into the track).
    public var deliveredFixes: Int
    /// Why tracking ended (`.sourceEnded` for a trace read to its end).
    public var end: TrackingEnd
    /// The engine's failure, if the source or store failed.
    public var failure: String?
  }

  /// Replays the trace at `path` (GPX, NMEA 0183 or gpsd JSON, recognised from its content).
  /// - Parameters:
  ///   - path: The trace file (`-` for standard input).
  ///   - mission: The mission to track (open, accepted, or active to resume nothing).
  ///   - otherMissions: Missions whose fences the worker may pass.
  ///   - configuration: Pipeline and fence settings.
  ///   - faults: Faults to inject, seeded (none by default).
  ///   - startAt: The time of the accept and start (default: the first fix's time).
  /// - Throws: `TrackingError` for a mission that cannot start, `TraceError` for bad faults.
  public static func run(
    path: String, mission: Mission, otherMissions: [Mission] = [],
    configuration: MissionEngine.Configuration = .init(), faults: TraceFaults = TraceFaults(),
    startAt: Date? = nil
  ) async throws -> Outcome {
    try await run(
      TraceReplaySource(path: path), mission: mission, otherMissions: otherMissions,
      configuration: configuration, faults: faults, startAt: startAt)
  }

  /// Replays a trace held in memory (`text` as UTF-8, or `bytes`); see
  /// `run(path:mission:otherMissions:configuration:faults:startAt:)`.
  public static func run(
    bytes: [UInt8], mission: Mission, otherMissions: [Mission] = [],
    configuration: MissionEngine.Configuration = .init(), faults: TraceFaults = TraceFaults(),
    startAt: Date? = nil
  ) async throws -> Outcome {
    try await run(
      TraceReplaySource(bytes: bytes), mission: mission, otherMissions: otherMissions,
      configuration: configuration, faults: faults, startAt: startAt)
  }

  /// Replays a trace held in a string; see `run(bytes:mission:…)`.
  public static func run(
    text: String, mission: Mission, otherMissions: [Mission] = [],
    configuration: MissionEngine.Configuration = .init(), faults: TraceFaults = TraceFaults(),
    startAt: Date? = nil
  ) async throws -> Outcome {
    try await run(
      bytes: Array(text.utf8), mission: mission, otherMissions: otherMissions,
      configuration: configuration, faults: faults, startAt: startAt)
  }

  private static func run(
    _ trace: TraceReplaySource, mission: Mission, otherMissions: [Mission],
    configuration: MissionEngine.Configuration, faults: TraceFaults, startAt: Date?
  ) async throws -> Outcome {
    let source = PrefetchedFixSource(faults.isEmpty ? trace : try trace.injectingFaults(faults))
    let start: Date
    if let startAt {
      start = startAt
    } else {
      start = await source.firstFixTime() ?? Date(timeIntervalSince1970: 0)
    }
    let engine = MissionEngine(
      // The events are collected from the engine below; the store need not keep them too.
      store: InMemoryTrackingStore(missions: [mission] + otherMissions, keepsEvents: false),
      source: source,
      clock: ManualClock(start), configuration: configuration)
    let collector = Task {
      // Whole batches as they come, copied while the replay runs (the engine mostly waits
      // for the reader), not after it.
      var events: [TrackingEvent] = []
      for await batch in engine.events.batchesAsHandedOver { events.append(contentsOf: batch) }
      return events
    }
    do {
      try await engine.open()
      if mission.state == .open { try await engine.perform(.accept, on: mission.id) }
      if !mission.state.isTracking { try await engine.perform(.start, on: mission.id) }
    } catch {
      await engine.shutdown()
      _ = await collector.value
      throw error
    }
    let end = await engine.waitUntilTrackingEnds()
    await engine.shutdown()
    let events = await collector.value
    var arrival: Date?
    var delivered = 0
    for event in events {
      switch event.kind {
      case .fix: delivered += 1
      case .state(_, .arrived) where arrival == nil: arrival = event.time
      default: break
      }
    }
    return Outcome(
      events: events, mission: await engine.mission(mission.id) ?? mission, arrivalTime: arrival,
      deliveredFixes: delivered, end: end, failure: await engine.failure)
  }
}
