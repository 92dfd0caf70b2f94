import Foundation
import MissionProximity

/// The one owner of a store's missions: lifecycles, the one tracked mission, every fence,
/// the fix source and the clock.
///
/// Everything else is an adapter around it. The engine decides each transition (through
/// `MissionLifecycle`), each fence state and each delivered fix (through
/// `TrackingPipeline`) exactly once, and hands its decisions to the `TrackingStore`, which
/// records them.
///
/// - **Missions** are loaded by `open()` and kept in step with the store: changes written by
///   another process (a `missions submit` from another shell, an import) are picked up
///   within `Configuration.changePollInterval`. The fences of every unfinished mission live
///   in a spatial grid that is updated in place when a mission is added, moved, changes
///   state or is removed, also while tracking.
/// - **Tracking** runs while one mission is `active` or `arrived`: the source is opened when
///   it becomes active (or at `open()` when the store holds it active: a resume with its
///   stored fence states and track end) and closed at once when it leaves those states,
///   whoever made the change; nothing is recorded after the stop. The first enter of the
///   mission's own fence moves it to `arrived`, also when it happens on the last fix.
/// - **Time**: transitions the engine performs are stamped by the injected `MissionClock`;
///   fix, fence and source events carry fix time.
///
/// Operations are serialized: a transition never interleaves with the processing of a
/// report, and a transition is durable in the store before its effects are applied.
public actor MissionEngine {
  /// Settings of the engine.
  public struct Configuration: Sendable, Hashable {
    /// Settings of the pipeline stages.
    public var pipeline: TrackingPipeline.Configuration
    /// Evaluate the fences of other missions the worker passes, not only the tracked one's.
    public var evaluatesOtherFences: Bool
    /// Radius of the "fences near the worker" query, metres (default 1000).
    public var nearbyRadiusMeters: Double
    /// Distance moved from the last query point after which the query is repeated, metres
    /// (default 250). Keep `nearbyRadiusMeters` ≥ this + the largest fence radius + margin.
    public var nearbyRefreshMeters: Double
    /// How often the store is asked for changes made by other processes (default 250 ms).
    public var changePollInterval: Duration

    /// Creates a configuration.
    public init(
      pipeline: TrackingPipeline.Configuration = .standard, evaluatesOtherFences: Bool = true,
      nearbyRadiusMeters: Double = 1000, nearbyRefreshMeters: Double = 250,
      changePollInterval: Duration = .milliseconds(250)
    ) {
      self.pipeline = pipeline
      self.evaluatesOtherFences = evaluatesOtherFences
      self.nearbyRadiusMeters = nearbyRadiusMeters
      self.nearbyRefreshMeters = nearbyRefreshMeters
      self.changePollInterval = changePollInterval
    }
  }

  private struct Session {
    var missionID: String
    var generation: Int
    var pipeline: TrackingPipeline
    var task: Task<Void, Never>?
    var lastQueryPoint: Coordinate?
    var lastReportTime: Date?
    /// The pipeline was finished (held-back epoch and rejection summary published).
    var finished = false
    /// The source said itself that it ended (a `source` `ended` status was published).
    var endReported = false
  }

  /// Every event the engine decided, in order, as recorded, for one consumer. Ends after
  /// `shutdown()`.
  public nonisolated let events: TrackingEvents
  private let continuation: AsyncStream<[TrackingEvent]>.Continuation
  private let store: any TrackingStore
  private let source: any FixSource
  private let clock: any MissionClock
  /// The configuration in use.
  public let configuration: Configuration

  private var lifecycles: [String: MissionLifecycle] = [:]
  /// Ids of the missions in a tracking state (at most one, unless a store was written by an
  /// older version).
  private var trackingIDs: Set<String> = []
  /// The ids of the missions with a deadline: `expireDue`, run every half second by
  /// `serve`, looks at these instead of every lifecycle (a million of them took ~5 % of a
  /// core with no deadline among them).
  private var deadlineIDs: Set<String> = []
  /// Every mission by id and by place, with its state, readable from any thread.
  package nonisolated let directory = MissionDirectory()
  private var changeToken: Int64?
  private var watcher: Task<Void, Never>?
  private var session: Session?
  private var generation = 0
  private var busy = false
  private var waiters: [CheckedContinuation<Void, Never>] = []
  private var scratch: [TrackingEvent] = []
  private var lastEnd: TrackingEnd?
  private var endWaiters: [CheckedContinuation<TrackingEnd, Never>] = []
  private var isShutDown = false
  /// The last error of the store or the source, if tracking stopped because of one.
  public private(set) var failure: String?
  /// The cleaning counts of the last tracking session that ended.
  public private(set) var lastSummary: CleaningSummary?
  /// The cleaning counts of every session that ended.
  private var endedSummary = CleaningSummary()

  /// Creates an engine; nothing is loaded or opened until `open()`.
  /// - Parameters:
  ///   - store: Where missions come from and decisions go.
  ///   - source: The fix source; iterated only while a mission is tracked.
  ///   - clock: Stamps the transitions the engine performs (default: the wall clock).
  ///   - configuration: Pipeline, fence and polling settings.
  public init(
    store: any TrackingStore, source: any FixSource, clock: any MissionClock = WallClock(),
    configuration: Configuration = Configuration()
  ) {
    self.store = store
    self.source = source
    self.clock = clock
    self.configuration = configuration
    let (batches, continuation) = AsyncStream<[TrackingEvent]>.makeStream(
      bufferingPolicy: .unbounded)
    events = TrackingEvents(batches)
    self.continuation = continuation
  }

  // MARK: - Opening and reading

  /// Loads every mission from the store, builds the fence grid, resumes tracking of the
  /// mission the store holds active (with its stored fence states), and starts watching the
  /// store for changes by other processes. Opening twice does nothing.
  /// - Throws: The store's error, or `ProximityError` for an unusable grid.
  public func open() async throws {
    await acquire()
    defer { release() }
    guard changeToken == nil, !isShutDown else { return }
    let all = try await store.changes(after: nil)
    for mission in all.missions {
      lifecycles[mission.id] = MissionLifecycle(mission: mission)
      if mission.state.isTracking { trackingIDs.insert(mission.id) }
      if mission.deadline != nil { deadlineIDs.insert(mission.id) }
    }
    try directory.load(all.missions)
    changeToken = all.token
    if let id = trackingIDs.sorted().first, let mission = lifecycles[id]?.mission {
      try await startSession(mission, resume: try await store.resumePoint(ofMission: id))
    }
    let interval = configuration.changePollInterval
    watcher = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        guard let self, await self.pollChanges() else { return }
      }
    }
  }

  /// The mission with `id`, in its current state.
  public func mission(_ id: String) -> Mission? { lifecycles[id]?.mission }

  /// The lifecycle of mission `id`, with the transitions this engine took.
  package func lifecycle(_ id: String) -> MissionLifecycle? { lifecycles[id] }

  /// The mission in a tracking state (`active` or `arrived`), if any.
  public var activeMissionID: String? { session?.missionID ?? trackingIDs.sorted().first }

  /// Whether a fix source is open for the active mission.
  public var isTracking: Bool { session != nil }

  /// The fence states of the tracked mission's session, by fence id.
  public var fenceStates: [String: FenceState]? { session?.pipeline.fenceStates }

  /// The cleaning counts of the current session.
  public var summary: CleaningSummary? { session?.pipeline.summary }

  /// The cleaning counts of every session since the engine was created, the current one
  /// included (for a service's metrics).
  package var totalSummary: CleaningSummary {
    var total = endedSummary
    if let current = session?.pipeline.summary { total.add(current) }
    return total
  }

  /// Missions within `radiusMeters` of `coordinate`, nearest first (ties by id), optionally
  /// only those whose state passes `filter` (applied before `limit`).
  /// - Throws: `ProximityError` for a bad radius or limit.
  public func missions(
    within radiusMeters: Double, of coordinate: Coordinate, limit: Int? = nil,
    where filter: (@Sendable (MissionState) -> Bool)? = nil
  ) throws -> [ProximityMatch] {
    try directory.missions(within: radiusMeters, of: coordinate, limit: limit, where: filter)
      .map(\.match)
  }

  /// Applies the changes other processes (or this process, through the store directly)
  /// wrote since the last look, now instead of at the next poll: after an import through the
  /// store, the engine's missions and grid include it when this returns.
  package func synchronize() async {
    _ = await pollChanges()
  }

  // MARK: - Actions

  /// Applies `action` to mission `id`, stamped with `time` or else the engine's clock.
  ///
  /// An idempotent action changes nothing. Starting tracking opens the source; stopping it
  /// publishes the held-back epoch and the rejection summary, closes the source and returns
  /// only once the source's iteration has ended.
  /// - Returns: The mission's state afterwards.
  /// - Throws: `TrackingError.unknownMission`, `.illegalTransition`,
  ///   `.workerBusy`, `.changedElsewhere`, or the store's error (the transition is
  ///   then not applied).
  @discardableResult
  public func perform(
    _ action: MissionAction, on id: String, worker: String? = nil, at time: Date? = nil
  ) async throws -> MissionState {
    _ = try await apply(action, on: id, worker: worker, at: time)
    return lifecycles[id]?.state ?? .open
  }

  /// `perform(_:on:at:)`, returning the transition taken (nil when the action changed
  /// nothing), for front ends that answer with its `state` event.
  package func apply(
    _ action: MissionAction, on id: String, worker: String? = nil, at time: Date? = nil
  ) async throws -> MissionTransition? {
    await acquire()
    var taken: MissionTransition?
    var stopped: Task<Void, Never>?
    do {
      (taken, stopped) = try await transition(
        action, on: id, worker: worker, at: time ?? clock.now())
    } catch {
      release()
      throw error
    }
    release()
    await stopped?.value
    return taken
  }

  /// Expires every open or accepted mission whose deadline has passed at `now` (default:
  /// the engine's clock).
  /// - Returns: The ids of the missions that expired, sorted.
  /// - Throws: The store's error.
  public func expireDue(at now: Date? = nil) async throws -> [String] {
    let time = now ?? clock.now()
    let due = deadlineIDs.filter { lifecycles[$0]?.isDue(at: time) == true }.sorted()
    for id in due { try await perform(.expire, on: id, at: time) }
    return due
  }

  /// Waits until the current tracking session ends and says why; returns at once when no
  /// session runs (with the reason the last one ended, or `.shutdown`).
  public func waitUntilTrackingEnds() async -> TrackingEnd {
    if session == nil { return lastEnd ?? .shutdown }
    return await withCheckedContinuation { endWaiters.append($0) }
  }

  /// Stops tracking without a lifecycle change (the mission stays active in the store, to
  /// be resumed), stops watching the store, and ends `events`.
  ///
  /// The epoch the cleaner still holds back is published first, then, when `reason` is
  /// given, a `source` `ended` event with it, so a clean stop (SIGTERM) loses no fix that
  /// was received. A failure to record them is reported in `failure`.
  public func shutdown(reason: String? = nil) async {
    await acquire()
    isShutDown = true
    watcher?.cancel()
    if let current = session {
      do {
        try await finishPipeline()
        if let reason, !current.endReported {
          try await publish([
            TrackingEvent(
              time: session?.lastReportTime ?? clock.now(), missionID: current.missionID,
              kind: .source(.ended, detail: reason))
          ])
        }
      } catch {
        failure = failure ?? "\(error)"
      }
    }
    do {
      try await store.flush()
    } catch TrackingError.changedElsewhere {
      // Another process stopped the mission: what it did not see is not recorded, by design.
    } catch {
      failure = failure ?? "\(error)"
    }
    let task = endSession(.shutdown)
    release()
    await task?.value
    continuation.finish()
  }

  // MARK: - Transitions

  private func transition(
    _ action: MissionAction, on id: String, worker: String? = nil, at time: Date
  ) async throws -> (transition: MissionTransition?, stopped: Task<Void, Never>?) {
    guard let lifecycle = lifecycles[id] else { throw TrackingError.unknownMission(id) }
    guard var transition = try lifecycle.transition(for: action, at: time, worker: worker) else {
      return (nil, nil)
    }
    if transition.to.isTracking && !transition.from.isTracking,
      let active = trackingIDs.first(where: { $0 != id })
    {
      throw TrackingError.workerBusy(
        workerID: lifecycle.mission.workerID ?? Worker.localID, tracked: active, requested: id)
    }
    if transition.from.isTracking && !transition.to.isTracking, session?.missionID == id {
      // The held-back epoch and the rejection summary belong to the session: publish them
      // before the transition that ends it (they may make the mission arrive first).
      try await finishPipeline()
      guard let updated = try lifecycles[id]?.transition(for: action, at: time) else {
        return (nil, nil)
      }
      transition = updated
    }
    try await store.flush()
    try await store.commit(transition)
    guard var changed = lifecycles[id] else { return (nil, nil) }
    var stopped: Task<Void, Never>?
    var start = false
    for effect in changed.commit(transition) {
      switch effect {
      case .startTracking: start = true
      case .stopTracking where session?.missionID == id:
        stopped = endSession(.missionStopped(transition.to))
      case .stopTracking: break  // a mission whose source already ended
      case .emit(let event): continuation.yield([event])
      }
    }
    setMission(changed.mission, lifecycle: changed)
    if start { try await startSession(changed.mission, resume: nil) }
    return (transition, stopped)
  }

  /// Replaces mission `mission.id` (nil lifecycle: removes it) and keeps the tracking set
  /// and the directory in step: the one place where the engine's view of a mission changes.
  private func setMission(_ mission: Mission, lifecycle: MissionLifecycle?) {
    keepMission(mission, lifecycle: lifecycle)
    directory.set(lifecycle?.mission, id: mission.id)
  }

  /// `setMission` but for the directory, which the caller updates (`apply` does so once
  /// for all of another process's changes).
  private func keepMission(_ mission: Mission, lifecycle: MissionLifecycle?) {
    lifecycles[mission.id] = lifecycle
    if lifecycle?.state.isTracking == true {
      trackingIDs.insert(mission.id)
    } else {
      trackingIDs.remove(mission.id)
    }
    if lifecycle?.mission.deadline != nil {
      deadlineIDs.insert(mission.id)
    } else {
      deadlineIDs.remove(mission.id)
    }
    // Fences of other missions changed: query them again at the next fix.
    if session != nil && session?.missionID != mission.id { session?.lastQueryPoint = nil }
  }

  // MARK: - Other processes

  /// Applies the store's changes since the last poll; false once shut down.
  private func pollChanges() async -> Bool {
    await acquire()
    guard !isShutDown, let token = changeToken else {
      release()
      return !isShutDown
    }
    var stopped: Task<Void, Never>?
    do {
      let changes = try await store.changes(after: token)
      changeToken = changes.token
      stopped = try await apply(changes)
    } catch {
      // A busy or briefly unreadable store: the next poll tries again.
    }
    release()
    await stopped?.value
    return true
  }

  private func apply(_ changes: MissionChanges) async throws -> Task<Void, Never>? {
    var stopped: Task<Void, Never>?
    var started: Mission?
    // The directory takes all of them at once: a reader (a nearby query) sees none of an
    // import or all of it, never the part applied so far.
    var published: [(id: String, mission: Mission?)] = []
    for mission in changes.missions {
      let old = lifecycles[mission.id]?.mission
      if old == mission { continue }
      keepMission(mission, lifecycle: MissionLifecycle(mission: mission))
      published.append((mission.id, mission))
      if session?.missionID == mission.id, !mission.state.isTracking {
        stopped = endSession(.missionStopped(mission.state))
      } else if mission.state.isTracking, old.map({ !$0.state.isTracking }) ?? true {
        started = mission
      }
    }
    for id in changes.removedIDs {
      guard let old = lifecycles[id]?.mission else { continue }
      keepMission(old, lifecycle: nil)
      published.append((id, nil))
      if session?.missionID == id { stopped = endSession(.missionRemoved) }
    }
    if !published.isEmpty {
      directory.set(published) { lifecycles.values.map(\.mission) }
    }
    if let started, session == nil, !isShutDown {
      // Made active by another process (a `missions start` beside a running service).
      try await startSession(started, resume: try await store.resumePoint(ofMission: started.id))
    }
    return stopped
  }

  // MARK: - Sessions

  private func startSession(_ mission: Mission, resume: TrackingPipeline.Resume?) async throws {
    generation += 1
    lastEnd = nil
    var pipeline = TrackingPipeline(
      mission: mission, configuration: configuration.pipeline, resume: resume)
    if configuration.evaluatesOtherFences, let resume {
      // Fences the worker was inside when tracking stopped, wherever the worker is now, so
      // that they can still exit and are never entered twice.
      let inside = resume.fenceStates.filter { $0.value.isInside && $0.key != mission.id }
      pipeline.replaceNearbyFences(
        inside.keys.sorted().compactMap { lifecycles[$0].map { Geofence(mission: $0.mission) } })
    }
    session = Session(missionID: mission.id, generation: generation, pipeline: pipeline)
    // Opened here, on the actor, so that the source runs when the caller returns.
    let batches = source.reportBatches()
    let generation = self.generation
    session?.task = Task { [weak self] in
      do {
        for try await batch in batches {
          guard let self, await self.handle(batch, generation: generation) else { break }
        }
        await self?.sourceEnded(generation: generation, error: nil)
      } catch {
        await self?.sourceEnded(generation: generation, error: error)
      }
    }
  }

  /// Ends the session (the source's iteration is cancelled) and wakes whoever waits for it;
  /// returns the source's task for the caller to await outside the lock.
  private func endSession(_ end: TrackingEnd) -> Task<Void, Never>? {
    guard let current = session else { return nil }
    lastSummary = current.pipeline.summary
    endedSummary.add(current.pipeline.summary)
    session = nil
    lastEnd = end
    current.task?.cancel()
    let waiting = endWaiters
    endWaiters = []
    for waiter in waiting { waiter.resume(returning: end) }
    return current.task
  }

  /// Empties `scratch` for the next events, keeping its capacity also when its buffer went
  /// out with the last events (to the store and the consumer): a fresh empty array would
  /// grow again by doubling, copying each batch's events several times.
  private func clearScratch() {
    let capacity = scratch.capacity
    scratch.removeAll(keepingCapacity: true)
    if scratch.capacity < capacity { scratch.reserveCapacity(capacity) }
  }

  private func finishPipeline() async throws {
    guard var current = session, !current.finished else { return }
    clearScratch()
    current.pipeline.finish(into: &scratch)
    current.finished = true
    session = current
    try await publish(scratch)
  }

  // MARK: - Reports

  /// Processes a batch of reports; false when the session is gone and the iteration should
  /// end. The events are recorded and published together, except that the first enter of
  /// the mission's own fence is published (and the mission arrives) before the next report
  /// is processed.
  private func handle(_ batch: [SourceReport], generation: Int) async -> Bool {
    await acquire()
    defer { release() }
    guard var current = session, current.generation == generation, !current.finished else {
      return false
    }
    clearScratch()
    var mayArrive = lifecycles[current.missionID]?.state == .active
    for report in batch {
      let before = scratch.count
      switch report {
      case .fix(let fix):
        // Invalid reports (no fix, (0, 0)) never move the neighbourhood.
        if configuration.evaluatesOtherFences, FixCleaner.invalidity(of: fix) == nil {
          let point = fix.coordinate
          let refresh = configuration.nearbyRefreshMeters
          // The bound (no trigonometry) settles the common case: it never understates.
          let moved = current.lastQueryPoint.map {
            $0.distanceUpperBound(to: point, cosLatitude: 1) > refresh
              && $0.distance(to: point) > refresh
          }
          if moved ?? true {
            current.pipeline.replaceNearbyFences(
              otherFences(near: point, excluding: current.missionID))
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
      guard mayArrive, scratch[before...].contains(where: isOwnEnter) else { continue }
      mayArrive = false
      session = current
      guard await publishOrFail(scratch), let updated = session, updated.generation == generation
      else { return false }
      current = updated
      clearScratch()
    }
    session = current
    return await publishOrFail(scratch) && session?.generation == generation
  }

  /// `publish(events)`; on an error tracking stops (`fail`) and the result is false.
  private func publishOrFail(_ events: [TrackingEvent]) async -> Bool {
    do {
      try await publish(events)
      return true
    } catch {
      fail(error)
      return false
    }
  }

  /// Whether `event` enters the tracked mission's own fence.
  private func isOwnEnter(_ event: TrackingEvent) -> Bool {
    if case .enter(let fence, _, _) = event.kind { return fence == event.missionID }
    return false
  }

  private func otherFences(near point: Coordinate, excluding id: String) -> [Geofence] {
    let matches =
      (try? directory.missions(
        within: configuration.nearbyRadiusMeters, of: point, where: { !$0.isFinal })) ?? []
    return matches.compactMap { match, mission in
      match.id == id ? nil : Geofence(mission: mission)
    }
  }

  private func sourceEnded(generation: Int, error: (any Error)?) async {
    await acquire()
    defer { release() }
    guard let current = session, current.generation == generation else { return }
    do {
      try await finishPipeline()
      let time = session?.lastReportTime ?? clock.now()
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
      try await store.flush()
      if let error { failure = "\(error)" }
      _ = endSession(error.map { .failed("\($0)") } ?? .sourceEnded)
    } catch {
      fail(error)
    }
  }

  /// Records `events`, then publishes them; the first enter of the tracked mission's own
  /// fence then makes it arrive, at that fix's time.
  private func publish(_ events: [TrackingEvent]) async throws {
    guard !events.isEmpty, let current = session else { return }
    var states: [String: FenceState] = [:]
    for event in events {
      if let fence = event.fenceID, let state = current.pipeline.geofence.state(of: fence) {
        states[fence] = state
      }
    }
    try await store.record(
      TrackingBatch(
        missionID: current.missionID, events: events, fenceStates: states,
        travelledMeters: current.pipeline.travelledMeters))
    continuation.yield(events)
    guard lifecycles[current.missionID]?.state == .active else { return }
    for event in events {
      if case .enter(let fence, _, _) = event.kind, fence == current.missionID {
        _ = try await transition(.arrive, on: current.missionID, at: event.time)
        return
      }
    }
  }

  /// Tracking stops because the store or the source failed; another process's stop
  /// (`changedElsewhere`) is a stop, not a failure.
  private func fail(_ error: any Error) {
    if case TrackingError.changedElsewhere(let id, let state) = error,
      let mission = lifecycles[id]?.mission
    {
      var changed = mission
      changed.state = state
      setMission(changed, lifecycle: MissionLifecycle(mission: changed))
      _ = endSession(state.isTracking ? .failed("\(error)") : .missionStopped(state))
      return
    }
    failure = "\(error)"
    if let current = session {
      continuation.yield([
        TrackingEvent(
          time: current.lastReportTime ?? clock.now(), missionID: current.missionID,
          kind: .source(.disconnected, detail: "tracking stopped: \(error)"))
      ])
    }
    _ = endSession(.failed("\(error)"))
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
