import Foundation

/// Runs missions through their lifecycle and tracks the active one from a fix source.
///
/// The tracker holds missions by id, allows at most one of them in a tracking state (`active`
/// or `arrived`) at a time, and owns the fix source: it calls `source.reports()` when a
/// mission becomes active and cancels the iteration when the mission is submitted, cancelled
/// or expires. No report is processed, recorded or published outside an active mission, and
/// none after the call that stopped tracking returns (`perform` waits until the iteration has
/// ended, so the source's termination handler has run).
///
/// Every report goes through a `TrackingPipeline`; its events are handed to the `TrackingSink`
/// (if any) and then published on `events` in fix-time order. The first geofence enter of the
/// active mission moves it to `arrived` automatically. Lifecycle transitions are committed to
/// the sink before their effects (start/stop, `state` event) are applied. Operations are
/// serialized: a transition never interleaves with the processing of a report.
///
/// Source status reports become `source` events stamped with the latest report's fix time
/// (or their own time before the first report), so events stay in fix-time order in replays.
public actor MissionTracker {
  /// Settings of the tracker.
  public struct Configuration: Sendable, Hashable {
    /// Settings of the pipeline stages.
    public var pipeline: TrackingPipeline.Configuration
    /// Radius of the "fences near the worker" query, metres (default 1000).
    public var nearbyRadiusMeters: Double
    /// Distance moved from the last query point after which the query is repeated, metres
    /// (default 250). Keep `nearbyRadiusMeters` ≥ this + the largest fence radius + margin.
    public var nearbyRefreshMeters: Double

    /// Creates a configuration.
    public init(
      pipeline: TrackingPipeline.Configuration = .standard, nearbyRadiusMeters: Double = 1000,
      nearbyRefreshMeters: Double = 250
    ) {
      self.pipeline = pipeline
      self.nearbyRadiusMeters = nearbyRadiusMeters
      self.nearbyRefreshMeters = nearbyRefreshMeters
    }
  }

  private struct Session {
    var missionID: String
    var generation: Int
    var pipeline: TrackingPipeline
    var task: Task<Void, Never>?
    var lastQueryPoint: Coordinate?
    var lastReportTime: Date?
    var sourceEnded = false
    /// The source said itself that it ended (a `source` `ended` status was published).
    var endReported = false
  }

  /// The events of every mission, in order. Ends when `shutdown()` is called.
  public nonisolated let events: AsyncStream<TrackingEvent>
  private let continuation: AsyncStream<TrackingEvent>.Continuation
  private let source: any FixSource
  private let sink: (any TrackingSink)?
  private let catalog: (any FenceCatalog)?
  /// The configuration in use.
  public let configuration: Configuration
  private var lifecycles: [String: MissionLifecycle] = [:]
  private var session: Session?
  private var generation = 0
  private var busy = false
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var scratch: [TrackingEvent] = []
  /// The last error of the sink or the source, if tracking stopped because of one.
  public private(set) var failure: String?
  /// The cleaning counts of the last tracking session that ended.
  public private(set) var lastSummary: CleaningSummary?

  /// Creates a tracker.
  /// - Parameters:
  ///   - source: The fix source; iterated only while a mission is tracked.
  ///   - configuration: Pipeline and nearby-fence settings.
  ///   - sink: Where transitions and events are persisted, if anywhere.
  ///   - catalog: Where fences of other missions near the worker come from, if anywhere.
  public init(
    source: any FixSource, configuration: Configuration = Configuration(),
    sink: (any TrackingSink)? = nil, catalog: (any FenceCatalog)? = nil
  ) {
    self.source = source
    self.configuration = configuration
    self.sink = sink
    self.catalog = catalog
    (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
  }

  /// Adds or replaces a mission (not the one being tracked).
  /// - Throws: `TrackingError.anotherMissionActive` when replacing the tracked mission, or
  ///   when adding a second mission in a tracking state.
  public func add(_ mission: Mission) throws(TrackingError) {
    if let active = activeMissionID {
      if active == mission.id || mission.state.isTracking {
        throw .anotherMissionActive(active: active, requested: mission.id)
      }
    }
    lifecycles[mission.id] = MissionLifecycle(mission: mission)
  }

  /// The mission with `id`, in its current state.
  public func mission(_ id: String) -> Mission? { lifecycles[id]?.mission }

  /// The lifecycle (with its recorded transitions) of mission `id`.
  public func lifecycle(_ id: String) -> MissionLifecycle? { lifecycles[id] }

  /// The mission being tracked, if any.
  public var activeMissionID: String? { session?.missionID }

  /// The fence states of the tracked mission's session.
  public var fenceStates: [String: FenceState]? { session?.pipeline.fenceStates }

  /// The cleaning counts of the current session.
  public var summary: CleaningSummary? { session?.pipeline.summary }

  /// Applies `action` to mission `id` at `time`.
  ///
  /// An idempotent action changes nothing. Starting tracking calls `source.reports()`;
  /// stopping it releases the held-back epoch, appends the rejection summary, cancels the
  /// iteration and returns only once the iteration has ended.
  /// - Returns: The mission's state afterwards.
  /// - Throws: `TrackingError.unknownMission`, `.illegalTransition`, `.anotherMissionActive`,
  ///   or the sink's error (the transition is then not applied).
  @discardableResult
  public func perform(_ action: MissionAction, on id: String, at time: Date = Date())
    async throws -> MissionState
  {
    await acquire()
    var stopped: Task<Void, Never>?
    do {
      stopped = try await transition(action, on: id, at: time)
    } catch {
      release()
      throw error
    }
    release()
    await stopped?.value
    return lifecycles[id]?.state ?? .open
  }

  /// Expires every open or accepted mission whose deadline has passed at `now`.
  /// - Returns: The ids of the missions that expired, sorted.
  /// - Throws: The sink's error.
  public func expireDue(at now: Date = Date()) async throws -> [String] {
    let due = lifecycles.values.filter { $0.isDue(at: now) }.map(\.mission.id).sorted()
    for id in due { try await perform(.expire, on: id, at: now) }
    return due
  }

  /// Resumes tracking after a restart: `mission` (stored as active or arrived) is tracked
  /// again from `resume`, without a `state` event and without an `initial` enter.
  /// - Throws: `TrackingError.illegalTransition` when the mission is not in a tracking state,
  ///   `.anotherMissionActive` when another one is tracked.
  public func resume(_ mission: Mission, from resume: TrackingPipeline.Resume) async throws {
    await acquire()
    defer { release() }
    guard mission.state.isTracking else {
      throw TrackingError.illegalTransition(
        missionID: mission.id, state: mission.state, action: .start)
    }
    if let active = session?.missionID {
      throw TrackingError.anotherMissionActive(active: active, requested: mission.id)
    }
    lifecycles[mission.id] = MissionLifecycle(mission: mission)
    startSession(mission, resume: resume)
  }

  /// Waits until the source of the current session has ended (for finite sources such as a
  /// replayed trace). Returns at once when nothing is tracked.
  public func waitUntilSourceEnds() async {
    await session?.task?.value
  }

  /// Stops tracking without a lifecycle change (the mission stays active in the store, to be
  /// resumed) and ends `events`.
  ///
  /// The epoch the cleaner still holds back is released and recorded first, so a clean stop
  /// (SIGTERM) loses no fix that was received; a failure to record it is reported in
  /// `failure`.
  public func shutdown() async {
    await acquire()
    do {
      try await finishPipeline()
      try await sink?.flush()
    } catch {
      failure = "\(error)"
    }
    let task = stopSession(finishing: false)
    release()
    await task?.value
    continuation.finish()
  }

  // MARK: - Transitions

  private func transition(_ action: MissionAction, on id: String, at time: Date) async throws
    -> Task<Void, Never>?
  {
    guard var lifecycle = lifecycles[id] else { throw TrackingError.unknownMission(id) }
    guard let transition = try lifecycle.transition(for: action, at: time) else { return nil }
    if transition.to.isTracking && !transition.from.isTracking, let active = session?.missionID,
      active != id
    {
      throw TrackingError.anotherMissionActive(active: active, requested: id)
    }
    if transition.from.isTracking && !transition.to.isTracking, session?.missionID == id {
      // The held-back epoch and the rejection summary belong to the session: publish them
      // before the transition that ends it.
      try await finishPipeline()
    }
    if let sink {
      try await sink.flush()
      try await sink.commit(transition)
    }
    var stopped: Task<Void, Never>?
    for effect in lifecycle.commit(transition) {
      switch effect {
      case .startTracking: startSession(lifecycle.mission, resume: nil)
      case .stopTracking where session?.missionID == id:
        stopped = stopSession(finishing: true)
      case .stopTracking: break  // a mission imported as active but never tracked here
      case .emit(let event): continuation.yield(event)
      }
    }
    lifecycles[id] = lifecycle
    return stopped
  }

  private func finishPipeline() async throws {
    guard var current = session, !current.sourceEnded else { return }
    scratch.removeAll(keepingCapacity: true)
    current.pipeline.finish(into: &scratch)
    current.sourceEnded = true
    session = current
    try await publish(scratch)
  }

  private func startSession(_ mission: Mission, resume: TrackingPipeline.Resume?) {
    generation += 1
    let pipeline = TrackingPipeline(
      mission: mission, configuration: configuration.pipeline, resume: resume)
    session = Session(missionID: mission.id, generation: generation, pipeline: pipeline)
    // Opened here, on the actor, so that the source runs when `perform` returns.
    let reports = source.reports()
    let generation = self.generation
    session?.task = Task { [weak self] in
      do {
        for try await report in reports {
          guard let self, await self.handle(report, generation: generation) else { break }
        }
        await self?.sourceEnded(generation: generation, error: nil)
      } catch {
        await self?.sourceEnded(generation: generation, error: error)
      }
    }
  }

  /// Ends the session; returns its task for the caller to await outside the lock.
  private func stopSession(finishing: Bool) -> Task<Void, Never>? {
    guard let current = session else { return nil }
    if let pipeline = session?.pipeline { lastSummary = pipeline.summary }
    session = nil
    current.task?.cancel()
    return current.task
  }

  // MARK: - Reports

  /// Processes one report; false when the session is gone and the iteration should end.
  private func handle(_ report: SourceReport, generation: Int) async -> Bool {
    await acquire()
    defer { release() }
    guard var current = session, current.generation == generation, !current.sourceEnded else {
      return false
    }
    scratch.removeAll(keepingCapacity: true)
    switch report {
    case .fix(let fix):
      // Invalid reports (no fix, (0, 0)) never move the neighbourhood.
      if let catalog, FixCleaner.invalidity(of: fix) == nil {
        let point = fix.coordinate
        if current.lastQueryPoint.map({ $0.distance(to: point) > configuration.nearbyRefreshMeters }
        )
          ?? true
        {
          let others = catalog.fences(within: configuration.nearbyRadiusMeters, of: point)
            .filter { $0.id != current.missionID }
          current.pipeline.replaceNearbyFences(others)
          current.lastQueryPoint = point
        }
      }
      current.pipeline.process(fix, into: &scratch)
      current.lastReportTime = fix.time
    case .status(let status):
      if status.kind == .ended { current.endReported = true }
      scratch.append(
        TrackingEvent(
          time: current.lastReportTime ?? status.time, missionID: current.missionID,
          kind: .source(status.kind, detail: status.detail)))
    }
    session = current
    do {
      try await publish(scratch)
      try await arriveIfEntered(scratch, mission: current.missionID)
    } catch {
      fail(error)
      return false
    }
    return true
  }

  private func sourceEnded(generation: Int, error: (any Error)?) async {
    await acquire()
    defer { release() }
    guard let current = session, current.generation == generation, !current.sourceEnded else {
      return
    }
    do {
      try await finishPipeline()
      let time = session?.lastReportTime ?? Date()
      if let error {
        try await publish([
          TrackingEvent(
            time: time, missionID: current.missionID,
            kind: .source(.disconnected, detail: "\(error)"))
        ])
      } else if !current.endReported {
        try await publish([
          TrackingEvent(time: time, missionID: current.missionID, kind: .source(.ended, detail: ""))
        ])
      }
      try await sink?.flush()
      if let error { failure = "\(error)" }
    } catch {
      fail(error)
    }
  }

  private func publish(_ events: [TrackingEvent]) async throws {
    guard !events.isEmpty, let current = session else { return }
    if let sink {
      var states: [String: FenceState] = [:]
      for event in events {
        if let fence = event.fenceID, let state = current.pipeline.geofence.state(of: fence) {
          states[fence] = state
        }
      }
      try await sink.record(
        TrackingBatch(
          missionID: current.missionID, events: events, fenceStates: states,
          travelledMeters: current.pipeline.travelledMeters))
    }
    for event in events { continuation.yield(event) }
  }

  private func arriveIfEntered(_ events: [TrackingEvent], mission id: String) async throws {
    guard lifecycles[id]?.state == .active else { return }
    for event in events {
      if case .enter(let fence, _, _) = event.kind, fence == id {
        _ = try await transition(.arrive, on: id, at: event.time)
        return
      }
    }
  }

  private func fail(_ error: any Error) {
    failure = "\(error)"
    if let current = session {
      continuation.yield(
        TrackingEvent(
          time: current.lastReportTime ?? Date(), missionID: current.missionID,
          kind: .source(.disconnected, detail: "tracking stopped: \(error)")))
    }
    _ = stopSession(finishing: false)
  }

  // MARK: - Serialization

  private func acquire() async {
    if !busy {
      busy = true
      return
    }
    await withCheckedContinuation { waiters.append($0) }
  }

  private func release() {
    if waiters.isEmpty { busy = false } else { waiters.removeFirst().resume() }
  }
}
