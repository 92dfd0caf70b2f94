import Foundation
import MissionProximity

/// The tracking session of one worker, as a pure state machine: its mission's pipeline
/// (clean → fences → distance filter), the fences of other missions near the worker, the
/// last report time and whether the input ended.
///
/// Its `mutating` methods take reports and return the `Step`s their owner must take, in
/// order — record a batch, make the mission arrive at a fix's time — and do no I/O: the
/// engine (`EngineState`) turns the steps into actions and `MissionEngine` executes them.
/// Every event it makes carries its worker's id.
package struct WorkerSession: Sendable {
  /// What the owner of a session must do, in order.
  package enum Step: Sendable, Hashable {
    /// Record these events (and the fence states and distance they leave), then publish them.
    case record(TrackingBatch)
    /// The mission's own fence was entered first at this fix time: the mission arrives then,
    /// before the rest of the reports (`continueReports`) are processed.
    case arrive(at: Date)
  }

  /// The worker tracked.
  package let workerID: String
  /// The tracked mission's id.
  package let missionID: String
  /// Tells this session from an earlier one of the same worker (reports of a closed source
  /// that were still queued are dropped by it).
  package let generation: Int
  /// When the mission was started, when this process started it: pushed fixes dated before
  /// it belong to no mission (nil after a resume or a start by another process).
  package let startTime: Date?
  /// The pipeline, with the cleaning counts, the fence states and the travelled distance.
  package private(set) var pipeline: TrackingPipeline
  /// The time of the latest report, for the source events that follow it.
  package private(set) var lastReportTime: Date?
  /// The last delivered fix (the end of the track).
  package private(set) var lastDelivered: Fix?
  /// The status of the latest source event.
  package private(set) var sourceStatus: SourceStatus.Kind?
  /// How many batches of this session the store holds once every batch made so far is
  /// recorded: the next batch is based on it (`TrackingBatch.basedOnVersion`).
  package private(set) var version: Int64
  /// The input ended: the held-back epoch and the rejection summary were released.
  package private(set) var isFinished = false
  /// The source said itself that it ended (a `source` `ended` event was made).
  package private(set) var endReported = false
  private var lastQueryPoint: Coordinate?
  /// Reports still to process after an arrival (`continueReports`).
  private var pending: ArraySlice<SourceReport> = []
  private let evaluatesOtherFences: Bool
  private let nearbyRadiusMeters: Double
  private let nearbyRefreshMeters: Double

  /// A session for `mission`, fresh or resumed.
  /// - Parameters:
  ///   - fencesInside: When resuming, the fences of other missions the worker was inside
  ///     when tracking stopped, so that they can still exit and are never entered twice.
  package init(
    workerID: String, mission: Mission, generation: Int, startTime: Date?,
    configuration: MissionEngine.Configuration, resume: TrackingPipeline.Resume?,
    fencesInside: [Geofence] = []
  ) {
    self.workerID = workerID
    missionID = mission.id
    self.generation = generation
    self.startTime = startTime
    pipeline = TrackingPipeline(
      mission: mission, configuration: configuration.pipeline, resume: resume)
    evaluatesOtherFences = configuration.evaluatesOtherFences
    nearbyRadiusMeters = configuration.nearbyRadiusMeters
    nearbyRefreshMeters = configuration.nearbyRefreshMeters
    if evaluatesOtherFences, !fencesInside.isEmpty { pipeline.replaceNearbyFences(fencesInside) }
    lastDelivered = resume?.lastDelivered
    version = resume?.version ?? 0
  }

  /// Processes `reports` in order; stops after the report that first enters the mission's
  /// own fence when `mayArrive` (returning `.arrive` last), keeping the rest for
  /// `continueReports`.
  /// - Parameter fencesNear: The fences of the other missions near a point (asked again
  ///   when the worker moved `nearbyRefreshMeters` from the last query point).
  package mutating func process(
    _ reports: [SourceReport], mayArrive: Bool, fencesNear: (Coordinate) -> [Geofence]
  ) -> [Step] {
    guard !isFinished else { return [] }
    pending = reports[...]
    return continueReports(mayArrive: mayArrive, fencesNear: fencesNear)
  }

  /// Processes the reports left by an arrival (`process`).
  package mutating func continueReports(
    mayArrive: Bool, fencesNear: (Coordinate) -> [Geofence]
  ) -> [Step] {
    var events: [TrackingEvent] = []
    events.reserveCapacity(pending.count + 2)
    while let report = pending.popFirst() {
      let before = events.count
      switch report {
      case .fix(let fix):
        refreshFences(for: fix, fencesNear: fencesNear)
        pipeline.process(fix, into: &events)
        lastReportTime = fix.time
      case .status(let status):
        if status.kind == .ended { endReported = true }
        sourceStatus = status.kind
        events.append(
          TrackingEvent(
            time: lastReportTime ?? status.time, missionID: missionID,
            kind: .source(status.kind, detail: status.detail)))
      }
      stamp(&events, from: before)
      if mayArrive, let enter = events[before...].first(where: isOwnEnter) {
        return [.record(batch(events)), .arrive(at: enter.time)]
      }
    }
    return events.isEmpty ? [] : [.record(batch(events))]
  }

  /// Releases the held-back epoch (pushed fixes are whole epochs, DESIGN §8): its events,
  /// and the arrival when it enters the mission's fence first and `mayArrive`.
  package mutating func releaseHeldEpoch(mayArrive: Bool) -> [Step] {
    guard !isFinished else { return [] }
    var events: [TrackingEvent] = []
    pipeline.releaseHeldEpoch(into: &events)
    stamp(&events, from: 0)
    guard !events.isEmpty else { return [] }
    if mayArrive, let enter = events.first(where: isOwnEnter) {
      return [.record(batch(events)), .arrive(at: enter.time)]
    }
    return [.record(batch(events))]
  }

  /// Ends the input: releases the held-back epoch and the rejection summary (once).
  package mutating func finish(mayArrive: Bool) -> [Step] {
    guard !isFinished else { return [] }
    isFinished = true
    pending = []
    var events: [TrackingEvent] = []
    pipeline.finish(into: &events)
    stamp(&events, from: 0)
    guard !events.isEmpty else { return [] }
    if mayArrive, let enter = events.first(where: isOwnEnter) {
      return [.record(batch(events)), .arrive(at: enter.time)]
    }
    return [.record(batch(events))]
  }

  /// The source ended (with `error`, or by itself): `finish`, then a `source` event saying
  /// so — `disconnected` with the error, or `ended` unless the source said so itself.
  package mutating func sourceEnded(error: String?, mayArrive: Bool, now: Date) -> [Step] {
    var steps = finish(mayArrive: mayArrive)
    if let error {
      steps.append(.record(batch([sourceEvent(.disconnected, detail: error, now: now)])))
    } else if !endReported {
      steps.append(.record(batch([sourceEvent(.ended, detail: "", now: now)])))
    }
    return steps
  }

  /// Stopping without a lifecycle change (shutdown): `finish`, then, when `reason` is given,
  /// a `source` `ended` event with it, so a clean stop loses no fix that was received.
  package mutating func shutDown(reason: String?, mayArrive: Bool, now: Date) -> [Step] {
    var steps = finish(mayArrive: mayArrive)
    if let reason, !endReported {
      steps.append(.record(batch([sourceEvent(.ended, detail: reason, now: now)])))
    }
    return steps
  }

  /// A `source` event of this session at the latest report's time (`now` before any).
  package func sourceEvent(_ kind: SourceStatus.Kind, detail: String, now: Date) -> TrackingEvent {
    TrackingEvent(
      time: lastReportTime ?? now, missionID: missionID, workerID: workerID,
      kind: .source(kind, detail: detail))
  }

  /// Forgets the fences near the worker when a mission changed within the query radius of
  /// the last query point (at `points`): they are asked again at the next fix.
  package mutating func forgetNearbyFences(ifNear points: [Coordinate]) {
    guard let query = lastQueryPoint else { return }
    if points.contains(where: { $0.distance(to: query) <= nearbyRadiusMeters + 1 }) {
      lastQueryPoint = nil
    }
  }

  /// Forgets the fences near the worker (after many missions changed at once).
  package mutating func forgetNearbyFences() { lastQueryPoint = nil }

  private mutating func refreshFences(for fix: Fix, fencesNear: (Coordinate) -> [Geofence]) {
    // Invalid reports (no fix, (0, 0)) never move the neighbourhood.
    guard evaluatesOtherFences, FixCleaner.invalidity(of: fix) == nil else { return }
    let point = fix.coordinate
    let refresh = nearbyRefreshMeters
    // The bound (no trigonometry) settles the common case: it never understates.
    let moved = lastQueryPoint.map {
      $0.distanceUpperBound(to: point, cosLatitude: 1) > refresh && $0.distance(to: point) > refresh
    }
    if moved ?? true {
      pipeline.replaceNearbyFences(fencesNear(point))
      lastQueryPoint = point
    }
  }

  private func stamp(_ events: inout [TrackingEvent], from start: Int) {
    for index in start..<events.count { events[index].workerID = workerID }
  }

  /// Whether `event` enters the tracked mission's own fence.
  private func isOwnEnter(_ event: TrackingEvent) -> Bool {
    if case .enter(let fence, _, _) = event.kind { return fence == missionID }
    return false
  }

  /// The batch of `events` with the fence states and distance they leave.
  private mutating func batch(_ events: [TrackingEvent]) -> TrackingBatch {
    var states: [String: FenceState] = [:]
    for event in events {
      if let fence = event.fenceID, let state = pipeline.geofence.state(of: fence) {
        states[fence] = state
      }
    }
    for event in events.reversed() {
      if case .fix(let fix, _, _) = event.kind {
        lastDelivered = fix
        break
      }
    }
    defer { version += 1 }
    return TrackingBatch(
      missionID: missionID, workerID: workerID, events: events, fenceStates: states,
      travelledMeters: pipeline.travelledMeters, basedOnVersion: version)
  }
}
