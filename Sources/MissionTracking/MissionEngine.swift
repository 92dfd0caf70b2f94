import Foundation
import MissionProximity

/// The one owner of a store's missions: lifecycles, the tracked mission of each worker,
/// every worker's tracking session, the watches, the fix sources and the clock.
///
/// Everything else is an adapter around it. Its decisions are made by a pure state machine,
/// `EngineState` (each worker's `WorkerSession`, each `MissionLifecycle`, the `WatchBook`),
/// which returns `EngineAction`s; this actor only executes them — commit a transition,
/// record a batch, open or close a source, publish — and hands the store's answers back.
///
/// - **Missions** are loaded by `open()` and kept in step with the store: changes written by
///   another process (a `missions submit` from another shell, an import) are picked up
///   within `Configuration.changePollInterval`. The fences of every unfinished mission live
///   in a spatial grid that is updated in place when a mission is added, moved, changes
///   state or is removed, also while tracking.
/// - **Tracking** runs per worker while its mission is `active` or `arrived`: the worker's
///   source (`sources(worker)`, or pushed fixes through `ingest`) is opened when the
///   mission becomes active here or in another process (or at `open()`: a resume with its
///   stored fence states and track end) and closed at once when it leaves those states;
///   nothing is recorded after the stop. The first enter of the mission's own fence moves it
///   to `arrived`, at that fix's time, also when it happens on the last fix. Workers are
///   decided independently.
/// - **Time**: transitions the engine performs are stamped by the injected `MissionClock`;
///   fix, fence and source events carry fix time.
///
/// Concurrency: every operation — a caller's action, a batch of a source's reports, a poll
/// of the store — is a job in one serial mailbox (an `AsyncStream` consumed by one task),
/// and each job runs its decisions and their I/O to the end before the next job starts. That
/// is a command queue, not a lock: no decision can interleave with another's I/O, whatever
/// the actor's reentrancy at `await`. Reading accessors run on the actor at any time and see
/// only committed decisions. A job never waits for another job (a source's task waits for
/// its reply outside the mailbox; a stop awaits the closed source after its job).
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

  /// One operation in the mailbox: a call of one of the engine's `…Now` methods, which runs
  /// on the actor to its end before the next job starts.
  private typealias Job = @Sendable () async -> Void

  /// Every event the engine decided, in order, as recorded, for one consumer. Ends after
  /// `shutdown()`.
  public nonisolated let events: TrackingEvents
  /// Every mission by id and by place, with its state, readable from any thread.
  package nonisolated let directory: MissionDirectory
  /// The configuration in use.
  public let configuration: Configuration
  private let continuation: AsyncStream<[TrackingEvent]>.Continuation
  private let store: any TrackingStore
  private let sources: @Sendable (String) -> (any FixSource)?
  private let clock: any MissionClock
  private let jobs: AsyncStream<Job>
  private let mailbox: AsyncStream<Job>.Continuation
  private var consumer: Task<Void, Never>?
  private var state: EngineState
  private var changeToken: Int64?
  private var watcher: Task<Void, Never>?
  /// The task iterating each worker's source.
  private var sourceTasks: [String: Task<Void, Never>] = [:]
  /// Source tasks closed by the running job, for its caller to await after it.
  private var closedTasks: [Task<Void, Never>] = []
  private var endWaiters: [String: [CheckedContinuation<TrackingEnd, Never>]] = [:]

  /// Creates an engine; nothing is loaded or opened until `open()`.
  /// - Parameters:
  ///   - store: Where missions come from and decisions go.
  ///   - sources: The fix source of worker W in this process, nil when this process has
  ///     none for W (a worker fed by phones through `ingest`); iterated only while W has a
  ///     tracked mission.
  ///   - clock: Stamps the transitions the engine performs (default: the wall clock).
  ///   - configuration: Pipeline, fence and polling settings.
  public init(
    store: any TrackingStore, sources: @escaping @Sendable (String) -> (any FixSource)?,
    clock: any MissionClock = WallClock(), configuration: Configuration = Configuration()
  ) {
    self.store = store
    self.sources = sources
    self.clock = clock
    self.configuration = configuration
    let directory = MissionDirectory()
    self.directory = directory
    state = EngineState(configuration: configuration, directory: directory)
    let (batches, continuation) = AsyncStream<[TrackingEvent]>.makeStream(
      bufferingPolicy: .unbounded)
    events = TrackingEvents(batches)
    self.continuation = continuation
    (jobs, mailbox) = AsyncStream<Job>.makeStream(bufferingPolicy: .unbounded)
  }

  /// Creates an engine whose `source` feeds worker `local` (for one-rig callers).
  public init(
    store: any TrackingStore, source: any FixSource, clock: any MissionClock = WallClock(),
    configuration: Configuration = Configuration()
  ) {
    self.init(
      store: store, sources: { $0 == Worker.localID ? source : nil }, clock: clock,
      configuration: configuration)
  }

  deinit { mailbox.finish() }

  // MARK: - Opening and reading

  /// Loads every mission and watch from the store, builds the fence grid, resumes the
  /// session of every worker the store holds tracked (with its stored fence states), and
  /// starts watching the store for changes by other processes. Opening twice does nothing.
  ///
  /// Watches start with their current result sets: missions that entered one while no
  /// engine ran are not announced.
  /// - Throws: The store's error, or `ProximityError` for an unusable grid.
  public func open() async throws {
    try await submitThrowing { engine in try await engine.openNow() }
  }

  /// The mission with `id`, in its current state.
  public func mission(_ id: String) -> Mission? { state.lifecycles[id]?.mission }

  /// The lifecycle of mission `id`, with the transitions this engine took.
  package func lifecycle(_ id: String) -> MissionLifecycle? { state.lifecycles[id] }

  /// The mission worker `worker` tracks (active or arrived), if any.
  public func trackedMissionID(ofWorker worker: String = Worker.localID) -> String? {
    state.trackedMissions[worker]
  }

  /// Every worker's tracked mission: worker id → mission id.
  public var trackedMissions: [String: String] { state.trackedMissions }

  /// Whether a tracking session runs for `worker`.
  public func isTracking(worker: String = Worker.localID) -> Bool {
    state.sessions[worker] != nil
  }

  /// The fence states of `worker`'s session, by fence id.
  public func fenceStates(ofWorker worker: String = Worker.localID) -> [String: FenceState]? {
    state.sessions[worker]?.pipeline.fenceStates
  }

  /// The cleaning counts of `worker`'s session.
  public func summary(ofWorker worker: String = Worker.localID) -> CleaningSummary? {
    state.sessions[worker]?.pipeline.summary
  }

  /// The last delivered fix of `worker`'s tracked mission (nothing is kept between
  /// missions).
  public func lastFix(ofWorker worker: String) -> Fix? { state.sessions[worker]?.lastDelivered }

  /// The distance `worker` travelled on its tracked mission, metres.
  public func travelledMeters(ofWorker worker: String) -> Double? {
    state.sessions[worker]?.pipeline.travelledMeters
  }

  /// The cleaning counts of `worker`'s last session that ended.
  package func lastSummary(ofWorker worker: String) -> CleaningSummary? {
    state.lastSummaries[worker]
  }

  /// The status of the last `source` event of `worker`'s session.
  package func sourceStatus(ofWorker worker: String) -> SourceStatus.Kind? {
    state.sessions[worker]?.sourceStatus
  }

  /// The cleaning counts of every session since the engine was created, the running ones
  /// included (for a service's metrics).
  package var totalSummary: CleaningSummary { state.totalSummary }

  /// The last error of the store or a source, if tracking stopped because of one.
  public var failure: String? { state.failure }

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
  /// An idempotent action changes nothing. Starting tracking opens the worker's source;
  /// stopping it records the held-back epoch and the rejection summary, closes the source
  /// and returns only once the source's iteration has ended.
  /// - Parameters:
  ///   - action: The lifecycle action.
  ///   - id: The mission's id.
  ///   - worker: The accepting worker for `accept` (default `local`).
  ///   - time: When it happens (default: the engine's clock).
  /// - Returns: The mission's state afterwards.
  /// - Throws: `TrackingError.unknownMission`, `.illegalTransition`, `.workerBusy`,
  ///   `.changedElsewhere`, `.unknownWorker`, or the store's error (the transition is then
  ///   not applied).
  @discardableResult
  public func perform(
    _ action: MissionAction, on id: String, worker: String? = nil, at time: Date? = nil
  ) async throws -> MissionState {
    _ = try await apply(action, on: id, worker: worker, at: time)
    return state.lifecycles[id]?.state ?? .open
  }

  /// `perform(_:on:worker:at:)`, returning the transition taken (nil when the action changed
  /// nothing), for front ends that answer with its `state` event.
  package func apply(
    _ action: MissionAction, on id: String, worker: String? = nil, at time: Date? = nil
  ) async throws -> MissionTransition? {
    let time = time ?? clock.now()
    let (transition, closed) = try await submitThrowing { engine in
      try await engine.performNow(action, on: id, worker: worker, at: time)
    }
    for task in closed { await task.value }
    return transition
  }

  /// Expires every open or accepted mission whose deadline has passed at `now` (default:
  /// the engine's clock).
  /// - Returns: The ids of the missions that expired, sorted.
  /// - Throws: The store's error.
  public func expireDue(at now: Date? = nil) async throws -> [String] {
    let time = now ?? clock.now()
    return try await submitThrowing { engine in try await engine.expireNow(at: time) }
  }

  /// Waits until `worker`'s session ends and says why; returns at once when none runs
  /// (with the reason the last one ended, or `.shutdown`).
  public func waitUntilTrackingEnds(worker: String = Worker.localID) async -> TrackingEnd {
    if state.sessions[worker] == nil { return state.lastEnds[worker] ?? .shutdown }
    return await withCheckedContinuation { endWaiters[worker, default: []].append($0) }
  }

  /// Stops tracking without a lifecycle change (the missions stay active in the store, to
  /// be resumed), stops watching the store, and ends `events`.
  ///
  /// Each session's held-back epoch is recorded first, then, when `reason` is given, a
  /// `source` `ended` event with it, so a clean stop (SIGTERM) loses no fix that was
  /// received. A failure to record them is reported in `failure`.
  public func shutdown(reason: String? = nil) async {
    let closed = await submit { engine in await engine.shutdownNow(reason: reason) } ?? []
    for task in closed { await task.value }
    continuation.finish()
  }

  // MARK: - Watches

  /// Adds or replaces a standing watch (stored through the store): it starts with its
  /// current result set and no events; a mission entering it later records one
  /// `mission_nearby` event.
  /// - Throws: The store's error (the watch is then not added).
  public func addWatch(_ watch: Watch) async throws {
    try await submitThrowing { engine in try await engine.addWatchNow(watch) }
  }

  /// Removes watch `id`; false when there was none.
  /// - Throws: The store's error.
  public func removeWatch(id: String) async throws -> Bool {
    try await submitThrowing { engine in try await engine.removeWatchNow(id: id) }
  }

  /// Every watch, by id.
  public func watches() -> [Watch] { state.watchBook.watches }

  // MARK: - Pushed fixes

  /// Hands pushed fixes of `worker` (phones, DESIGN §8) to its session, in fix-time order.
  ///
  /// Fixes of a worker with no tracked mission, or dated before its mission's start (when
  /// this process started it), are dropped and counted `untracked`; duplicates and
  /// out-of-order fixes are counted as DESIGN §2 says. An arrival is stamped with the time
  /// of the fix inside. Each fix is a whole epoch: the last one is decided too. What is
  /// recorded joins the store's group commit: the caller flushes the store before it
  /// acknowledges the fixes (one flush for many requests).
  /// - Throws: The store's error; tracking of `worker` then stops (another process's stop
  ///   is not an error: the fixes count as `untracked`).
  package func ingest(_ fixes: [Fix], worker: String) async throws -> IngestCounts {
    try await submitThrowing { engine in try await engine.ingestNow(fixes, worker: worker) }
  }

  /// `ingest(_:worker:)` for many requests of any workers in one job, in order: one trip
  /// through the mailbox for all the requests a server has waiting, each decided as it
  /// would be alone. Each result is the request's counts and whether its worker has a
  /// tracked mission once they were decided, or the error that request met (a request
  /// without fixes only asks the latter).
  package func ingest(_ requests: [(fixes: [Fix], worker: String)]) async
    -> [Result<(counts: IngestCounts, tracked: Bool), any Error>]
  {
    let results = await submit { engine in await engine.ingestNow(requests) }
    return results ?? requests.map { _ in .failure(CancellationError()) }
  }

  // MARK: - Jobs

  private func openNow() async throws {
    guard changeToken == nil, !state.isShutDown else { return }
    let all = try await store.changes(after: nil)
    let watches = try await store.watches()
    let resumes = try state.load(all.missions, watches: watches)
    changeToken = all.token
    try await run(resumes)
    let interval = configuration.changePollInterval
    watcher = Task { [weak self] in
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        guard let self, await self.pollChanges() else { return }
      }
    }
  }

  private func expireNow(at time: Date) async throws -> [String] {
    let due = state.dueMissions(at: time)
    for id in due { _ = try await performNow(.expire, on: id, worker: nil, at: time) }
    return due
  }

  private func addWatchNow(_ watch: Watch) async throws {
    try await store.saveWatch(watch)
    state.addWatch(watch)
  }

  private func removeWatchNow(id: String) async throws -> Bool {
    let stored = try await store.removeWatch(id: id)
    let held = state.removeWatch(id: id)
    return stored || held
  }

  private func performNow(
    _ action: MissionAction, on id: String, worker: String?, at time: Date
  ) async throws -> (MissionTransition?, [Task<Void, Never>]) {
    // Decided from what this process knows, which another process (another node behind
    // the same load balancer) may have changed since the last poll: an accept there and a
    // start here a moment later. A refusal, or nothing to change, is decided once more
    // after catching up with the store.
    var closed: [Task<Void, Never>] = []
    do {
      let (transition, tasks) = try await performOnce(action, on: id, worker: worker, at: time)
      guard transition == nil else { return (transition, tasks) }
      closed = tasks
    } catch let error as TrackingError {
      switch error {
      case .illegalTransition, .acceptedByAnother, .workerBusy, .unknownMission,
        .changedElsewhere:
        break
      default:
        throw error
      }
    }
    try await catchUp()
    let (transition, tasks) = try await performOnce(action, on: id, worker: worker, at: time)
    return (transition, closed + tasks)
  }

  private func performOnce(
    _ action: MissionAction, on id: String, worker: String?, at time: Date
  ) async throws -> (MissionTransition?, [Task<Void, Never>]) {
    try await run(try state.prepare(action, on: id, worker: worker, at: time))
    guard let transition = try state.transition(action, on: id, worker: worker, at: time) else {
      return (nil, takeClosedTasks())
    }
    try await run([.flush, .commit(transition)])
    return (transition, takeClosedTasks())
  }

  /// Applies the store's changes since the last poll; false once shut down.
  private func pollChanges() async -> Bool {
    let closed = await submit { engine in await engine.pollNow() }
    guard let closed = closed ?? nil else { return false }
    for task in closed { await task.value }
    return true
  }

  /// One poll of the store; nil once shut down, else the sources it closed.
  private func pollNow() async -> [Task<Void, Never>]? {
    guard !state.isShutDown else { return nil }
    do {
      try await catchUp()
    } catch {
      // A busy or briefly unreadable store: the next poll tries again.
    }
    return takeClosedTasks()
  }

  /// Applies the store's changes since the last look: other processes' imports and
  /// transitions.
  private func catchUp() async throws {
    guard let token = changeToken else { return }
    let changes = try await store.changes(after: token)
    changeToken = changes.token
    try await run(state.apply(changes, now: clock.now()))
  }

  /// `worker`'s pushed fixes, decided again from the store's state while another process
  /// (another `serve` node on the same database) recorded the worker's decisions since this
  /// session read them: what that process recorded counts as duplicates here.
  /// - Parameter lost: Races lost already for these fixes (a deferred record's).
  private func ingestNow(_ fixes: [Fix], worker: String, lost: Int = 0) async throws
    -> IngestCounts
  {
    var lost = lost
    await catchUpForUntracked([worker])
    while true {
      do {
        return try await execute(decideIngest(fixes, worker: worker))
      } catch TrackingError.decidedElsewhere where lost < 7 {
        // Other deciders winning eight times in a row: the error reaches the caller (the
        // session stays and reads the store again next time).
        lost += 1
        try await resynchronize(worker: worker)
      }
    }
  }

  /// Brings `worker`'s session up to the store: the store's changes (a stop or an arrival
  /// by another process), then the session's recorded state.
  private func resynchronize(worker: String) async throws {
    try await catchUp()
    guard let missionID = state.sessions[worker]?.missionID else { return }
    let resume = try await store.resumePoint(ofMission: missionID)
    state.resynchronize(worker: worker, resume: resume)
  }

  /// Catches up with the store once when this process knows no tracked mission of one of
  /// `workers`: it may have been started through another process (another `serve` node)
  /// since the last poll, and the worker's positions would otherwise be dropped as
  /// untracked (and acknowledged, so never sent again). A store that cannot be read leaves
  /// them to be decided from what this process knows.
  private func catchUpForUntracked(_ workers: [String]) async {
    guard workers.contains(where: { state.trackedMissions[$0] == nil }) else { return }
    try? await catchUp()
  }

  /// Brings the sessions of `workers` that another decider (another `serve` node) recorded
  /// batches of since this one read them up to the store, with one look for all: a phone
  /// whose positions reach the nodes in turn is then decided from the stored state, not
  /// refused by the store and decided again. A session that moves on after the look is
  /// still refused and decided again.
  private func resynchronizeStale(workers: [String]) async {
    guard store.sessionsAreShared else { return }
    let held = state.sessionVersions(of: workers)
    do {
      let stale = try await store.resumePoints(ofSessionsOtherThan: held.mapValues(\.version))
      guard !stale.isEmpty else { return }
      try await catchUp()
      for (missionID, resume) in stale {
        guard let worker = held[missionID]?.worker,
          state.sessions[worker]?.missionID == missionID
        else { continue }
        state.resynchronize(worker: worker, resume: resume)
      }
    } catch {
      // Unread: a stale session's records are refused, and it is decided again then.
    }
  }

  /// Decides `worker`'s pushed fixes; the held-back epoch's release too when the fixes
  /// asked only for records.
  private func decideIngest(_ fixes: [Fix], worker: String) -> IngestDecision {
    let before = state.sessions[worker]?.pipeline.summary ?? CleaningSummary()
    let (actions, processed, untracked) = state.ingest(fixes, worker: worker)
    var decision = IngestDecision(
      worker: worker, fixes: fixes, actions: actions, releasesEpoch: false, before: before,
      processed: processed, untracked: untracked)
    if processed > 0, decision.onlyRecords {
      decision.actions += state.ingested(worker: worker)
      decision.releasesEpoch = true
    }
    return decision
  }

  /// Executes `decision` alone.
  private func execute(_ decision: IngestDecision) async throws -> IngestCounts {
    guard decision.processed > 0 else { return decision.counts(after: decision.before) }
    do {
      try await run(decision.actions)
      if !decision.releasesEpoch { try await run(state.ingested(worker: decision.worker)) }
    } catch {
      return try await ingestFailed(decision, error)
    }
    return decision.counts(after: summary(after: decision))
  }

  /// What became of `decision` whose records met `error`: rethrown when another decider
  /// recorded first (the caller decides again); otherwise the session ends, and the fixes
  /// count as untracked when another process stopped the mission.
  private func ingestFailed(_ decision: IngestDecision, _ error: any Error) async throws
    -> IngestCounts
  {
    if case TrackingError.decidedElsewhere = error { throw error }
    try? await run(state.failed(worker: decision.worker, error: error, now: clock.now()))
    if case TrackingError.changedElsewhere = error { return decision.countsUnrecorded }
    throw error
  }

  /// The cleaning counts of `decision`'s worker once it is executed.
  private func summary(after decision: IngestDecision) -> CleaningSummary {
    state.sessions[decision.worker]?.pipeline.summary ?? state.lastSummaries[decision.worker]
      ?? decision.before
  }

  /// The requests of one job, in order. A request whose decision only records batches — a
  /// phone's positions between arrivals, nearly all of them — is deferred, and the deferred
  /// ones are recorded together (`TrackingStore.record(contentsOf:)`: one transaction for
  /// many workers on PostgreSQL) before anything else is executed and before a deferred
  /// worker's next request is decided, so each is decided as it would be alone.
  private func ingestNow(_ requests: [(fixes: [Fix], worker: String)]) async
    -> [Result<(counts: IngestCounts, tracked: Bool), any Error>]
  {
    var results = [Result<IngestCounts, any Error>](
      repeating: .success(IngestCounts()), count: requests.count)
    var deferred: [(index: Int, decision: IngestDecision)] = []
    let pushing = requests.filter { !$0.fixes.isEmpty }.map(\.worker)
    await catchUpForUntracked(pushing)
    await resynchronizeStale(workers: pushing)
    for (index, request) in requests.enumerated() where !request.fixes.isEmpty {
      if deferred.contains(where: { $0.decision.worker == request.worker }) {
        await recordDeferred(&deferred, into: &results)
      }
      let decision = decideIngest(request.fixes, worker: request.worker)
      if decision.isDeferrable {
        deferred.append((index, decision))
        continue
      }
      await recordDeferred(&deferred, into: &results)
      do {
        results[index] = .success(try await execute(decision))
      } catch TrackingError.decidedElsewhere {
        results[index] = await decideAgain(decision)
      } catch {
        results[index] = .failure(error)
      }
    }
    await recordDeferred(&deferred, into: &results)
    return zip(requests, results).map { request, result in
      result.map { ($0, state.trackedMissions[request.worker] != nil) }
    }
  }

  /// `decision`'s fixes decided again after another decider recorded first.
  private func decideAgain(_ decision: IngestDecision) async -> Result<IngestCounts, any Error> {
    do {
      try await resynchronize(worker: decision.worker)
      return .success(try await ingestNow(decision.fixes, worker: decision.worker, lost: 1))
    } catch {
      return .failure(error)
    }
  }

  /// Records the deferred decisions' batches together, publishes what was recorded, and
  /// settles each request: counted, decided again when another decider recorded first, or
  /// failed as it would have alone.
  private func recordDeferred(
    _ deferred: inout [(index: Int, decision: IngestDecision)],
    into results: inout [Result<IngestCounts, any Error>]
  ) async {
    guard !deferred.isEmpty else { return }
    let items = deferred
    deferred = []
    let batches = items.map(\.decision.batches)
    let outcomes = await store.record(contentsOf: batches.flatMap { $0 })
    var next = 0
    for (item, ownBatches) in zip(items, batches) {
      var error: (any Error)?
      for batch in ownBatches {
        if let failed = outcomes[next] {
          error = error ?? failed
        } else {
          continuation.yield(batch.events)
        }
        next += 1
      }
      guard let error else {
        results[item.index] = .success(item.decision.counts(after: summary(after: item.decision)))
        continue
      }
      do {
        results[item.index] = .success(try await ingestFailed(item.decision, error))
      } catch TrackingError.decidedElsewhere {
        results[item.index] = await decideAgain(item.decision)
      } catch {
        results[item.index] = .failure(error)
      }
    }
  }

  /// A batch of `worker`'s source; false when the source should stop.
  private func handleReports(_ batch: [SourceReport], worker: String, generation: Int) async
    -> Bool
  {
    do {
      try await run(state.reports(batch, worker: worker, generation: generation))
    } catch {
      try? await run(state.failed(worker: worker, error: error, now: clock.now()))
      wakeEndedWaiters()
    }
    // This job runs on the source's own task, which must not await itself.
    closedTasks.removeAll()
    return state.isCurrent(worker: worker, generation: generation)
  }

  private func handleSourceEnd(worker: String, generation: Int, error: String?) async {
    do {
      try await run(
        state.sourceEnded(worker: worker, generation: generation, error: error, now: clock.now()))
    } catch {
      try? await run(state.failed(worker: worker, error: error, now: clock.now()))
      wakeEndedWaiters()
    }
    closedTasks.removeAll()
  }

  private func shutdownNow(reason: String?) async -> [Task<Void, Never>] {
    watcher?.cancel()
    let now = clock.now()
    for worker in state.beginShutdown() {
      do {
        try await run(state.finishForShutdown(worker: worker, reason: reason, now: now))
      } catch {
        state.noteFailure(error)
      }
    }
    do {
      try await store.flush()
    } catch TrackingError.changedElsewhere {
      // Another process stopped the mission: what it did not see is not recorded, by design.
    } catch {
      state.noteFailure(error)
    }
    try? await run(state.endAllSessions(.shutdown))
    wakeEndedWaiters()
    return takeClosedTasks()
  }

  // MARK: - Executing actions

  /// Executes `actions` in order; a commit's effects (`EngineState.committed`) run at once,
  /// before the actions after it. Stops at the first error, which it throws.
  private func run(_ actions: [EngineAction]) async throws {
    for action in actions {
      switch action {
      case .flush:
        try await store.flush()
      case .commit(let transition):
        try await store.commit(transition)
        try await run(state.committed(transition))
      case .record(let batch):
        try await store.record(batch)
        continuation.yield(batch.events)
      case .recordEvents(let events):
        try await store.recordEvents(events)
        continuation.yield(events)
      case .publish(let events):
        continuation.yield(events)
      case .openSource(let worker, let generation):
        openSource(of: worker, generation: generation)
      case .closeSource(let worker):
        if let task = sourceTasks.removeValue(forKey: worker) {
          task.cancel()
          closedTasks.append(task)
        }
      case .resume(_, let missionID):
        // The start may have been made by another process or before a restart: its time
        // comes from the store, so buffered fixes from before it stay outside.
        let resume = try await store.resumePoint(ofMission: missionID)
        let start = try await store.trackingStart(ofMission: missionID)
        try await run(state.startSession(missionID: missionID, resume: resume, startTime: start))
      case .endTracking(let worker, let end):
        for waiter in endWaiters.removeValue(forKey: worker) ?? [] { waiter.resume(returning: end) }
      }
    }
  }

  /// Opens `worker`'s source, if this process has one; its batches become jobs.
  private func openSource(of worker: String, generation: Int) {
    guard let source = sources(worker) else { return }
    sourceTasks.removeValue(forKey: worker)?.cancel()
    // Opened here, on the actor, so that the source runs when the caller's job returns.
    let batches = source.reportBatches()
    sourceTasks[worker] = Task { [weak self] in
      do {
        for try await batch in batches {
          guard let self,
            await self.submit({ engine in
              await engine.handleReports(batch, worker: worker, generation: generation)
            }) == true
          else { break }
        }
        _ = await self?.submit { engine in
          await engine.handleSourceEnd(worker: worker, generation: generation, error: nil)
        }
      } catch {
        let text = "\(error)"
        _ = await self?.submit { engine in
          await engine.handleSourceEnd(worker: worker, generation: generation, error: text)
        }
      }
    }
  }

  /// Wakes the waiters of workers whose session ended on a path that stopped early (a
  /// failure after the session was taken down).
  private func wakeEndedWaiters() {
    for worker in endWaiters.keys where state.sessions[worker] == nil {
      let end = state.lastEnds[worker] ?? .shutdown
      for waiter in endWaiters.removeValue(forKey: worker) ?? [] { waiter.resume(returning: end) }
    }
  }

  private func takeClosedTasks() -> [Task<Void, Never>] {
    defer { closedTasks.removeAll() }
    return closedTasks
  }

  // MARK: - The mailbox

  /// Runs `body` as a job in the mailbox, after every job submitted before it, and returns
  /// its result (nil when the mailbox has ended).
  private func submit<T: Sendable>(
    _ body: @escaping @Sendable (MissionEngine) async -> T
  ) async -> T? {
    startConsumer()
    return await withCheckedContinuation { (reply: CheckedContinuation<T?, Never>) in
      let job: Job = { [weak self] in
        guard let self else { return reply.resume(returning: nil) }
        reply.resume(returning: await body(self))
      }
      if case .terminated = mailbox.yield(job) { reply.resume(returning: nil) }
    }
  }

  /// `submit` for a body that throws.
  private func submitThrowing<T: Sendable>(
    _ body: @escaping @Sendable (MissionEngine) async throws -> T
  ) async throws -> T {
    let result = await submit { engine -> Result<T, any Error> in
      do { return .success(try await body(engine)) } catch { return .failure(error) }
    }
    guard let result else { throw CancellationError() }
    return try result.get()
  }

  /// Starts the one task that runs the jobs, in order, each to its end.
  private func startConsumer() {
    guard consumer == nil else { return }
    let jobs = self.jobs
    // Detached: it holds no reference to the engine (the jobs hold it weakly), so the
    // engine can go away, and its `deinit` ends the mailbox and this loop.
    consumer = Task.detached {
      for await job in jobs { await job() }
    }
  }
}
