import Foundation
import MissionProximity

/// Every decision of `MissionEngine`, as a state machine that does no I/O (swift-nio style):
/// the missions' lifecycles, the tracked mission of each worker, each worker's
/// `WorkerSession`, the deadlines and the watches.
///
/// Each `mutating` method takes one input — an action, another process's changes, a batch
/// of a worker's reports, the end of a source, a shutdown — and returns the `EngineAction`s
/// to execute, in order. A transition takes effect only when the executor reports it
/// durable (`committed`). The one thing it writes besides itself is the `MissionDirectory`,
/// the in-memory index of its missions that other threads read.
///
/// Workers are independent: a worker's reports touch only its own session, which evaluates
/// its mission's fence and the fences of the other missions it passes.
package struct EngineState: Sendable {
  /// The settings of the engine.
  package let configuration: MissionEngine.Configuration
  /// Every mission by id and by place (updated in place with every change).
  package let directory: MissionDirectory
  /// Every mission's lifecycle, by mission id.
  package private(set) var lifecycles: [String: MissionLifecycle] = [:]
  /// The mission each worker tracks (active or arrived), by worker id.
  package private(set) var trackedMissions: [String: String] = [:]
  /// The running tracking sessions, by worker id.
  package private(set) var sessions: [String: WorkerSession] = [:]
  /// The standing watches and their result sets.
  package private(set) var watchBook = WatchBook()
  /// Why each worker's last session ended, by worker id.
  package private(set) var lastEnds: [String: TrackingEnd] = [:]
  /// The cleaning counts of each worker's last ended session, by worker id.
  package private(set) var lastSummaries: [String: CleaningSummary] = [:]
  /// The cleaning counts of every ended session.
  package private(set) var endedSummary = CleaningSummary()
  /// The last error of the store or a source, if tracking stopped because of one.
  package private(set) var failure: String?
  /// Shut down: no session starts any more.
  package private(set) var isShutDown = false
  /// The ids of the missions with a deadline: `expireDue`, run every half second by
  /// `serve`, looks at these instead of every lifecycle.
  private var deadlineIDs: Set<String> = []
  private var generation = 0

  /// Nothing loaded yet.
  package init(configuration: MissionEngine.Configuration, directory: MissionDirectory) {
    self.configuration = configuration
    self.directory = directory
  }

  /// The worker of `mission`: the one who accepted it, `local` when none is recorded.
  package static func workerID(of mission: Mission) -> String {
    mission.workerID ?? Worker.localID
  }

  /// The cleaning counts of every session, the running ones included.
  package var totalSummary: CleaningSummary {
    var total = endedSummary
    for session in sessions.values { total.add(session.pipeline.summary) }
    return total
  }

  /// Whether session `generation` of `worker` still runs unfinished (its source is wanted).
  package func isCurrent(worker: String, generation: Int) -> Bool {
    guard let session = sessions[worker] else { return false }
    return session.generation == generation && !session.isFinished
  }

  /// What `read` takes from `worker`'s session, read where it is stored; nil when the
  /// worker has none. For the paths of every position: reading a session out of the
  /// dictionary copies it, retaining each of its many parts (2% of the service's time
  /// under single-position phones), where this access is in place.
  private mutating func inPlace<T>(_ worker: String, _ read: (inout WorkerSession) -> T?) -> T? {
    guard let index = sessions.index(forKey: worker) else { return nil }
    return read(&sessions.values[index])
  }

  /// The session version each of `workers` that has a session holds, by its mission (with
  /// the worker): what `TrackingStore.resumePoints(ofSessionsOtherThan:)` compares.
  package mutating func sessionVersions(of workers: [String]) -> [String: (
    worker: String, version: Int64
  )] {
    var held: [String: (worker: String, version: Int64)] = [:]
    for worker in workers {
      if let (mission, version) = inPlace(worker, { ($0.missionID, $0.version) }) {
        held[mission] = (worker, version)
      }
    }
    return held
  }

  // MARK: - Loading and other processes

  /// Loads every mission and watch (at `open()`): watches start with their current result
  /// sets and no events — entries while no engine ran are not announced. Returns the
  /// resumes of the tracked missions, one per worker.
  /// - Throws: `ProximityError` for an unusable grid.
  package mutating func load(_ missions: [Mission], watches: [Watch]) throws -> [EngineAction] {
    for mission in missions {
      lifecycles[mission.id] = MissionLifecycle(mission: mission)
      if mission.deadline != nil { deadlineIDs.insert(mission.id) }
      guard mission.state.isTracking else { continue }
      // A store written by an older version may hold two for one worker: the first by id.
      let worker = Self.workerID(of: mission)
      if let held = trackedMissions[worker], held < mission.id { continue }
      trackedMissions[worker] = mission.id
    }
    try directory.load(missions)
    for watch in watches { watchBook.add(watch, members: currentMembers(of: watch)) }
    return trackedMissions.sorted { $0.key < $1.key }.map {
      .resume(worker: $0.key, missionID: $0.value)
    }
  }

  /// Applies missions written by another process (or through the store directly) at `now`:
  /// stops the session of a mission taken out of tracking or removed, resumes the session
  /// of a mission made tracked, and records `mission_nearby` for watches entered.
  package mutating func apply(_ changes: MissionChanges, now: Date) -> [EngineAction] {
    var actions: [EngineAction] = []
    var started: [String] = []
    // The directory takes all of them at once: a reader (a nearby query) sees none of an
    // import or all of it, never the part applied so far.
    var published: [(id: String, mission: Mission?)] = []
    let many = changes.missions.count + changes.removedIDs.count > 64
    for mission in changes.missions {
      let old = lifecycles[mission.id]?.mission
      if old == mission { continue }
      actions += setMission(
        mission, id: mission.id, lifecycle: MissionLifecycle(mission: mission), at: now,
        updatesDirectory: false, forgetsFences: !many)
      published.append((mission.id, mission))
      let worker = old.map(Self.workerID(of:))
      if let worker, sessions[worker]?.missionID == mission.id, !mission.state.isTracking {
        actions += endSession(of: worker, .missionStopped(mission.state))
      } else if mission.state.isTracking, !(old?.state.isTracking ?? false) {
        started.append(mission.id)
      }
    }
    for id in changes.removedIDs {
      guard let old = lifecycles[id]?.mission else { continue }
      actions += setMission(
        nil, id: id, lifecycle: nil, at: now, updatesDirectory: false, forgetsFences: !many,
        old: old)
      published.append((id, nil))
      let worker = Self.workerID(of: old)
      if sessions[worker]?.missionID == id { actions += endSession(of: worker, .missionRemoved) }
    }
    if !published.isEmpty {
      directory.set(published) { lifecycles.values.map(\.mission) }
    }
    if many {
      for worker in sessions.keys { sessions[worker]?.forgetNearbyFences() }
    }
    for id in started {
      // Made tracked by another process (a `missions start` beside a running service).
      guard !isShutDown, let mission = lifecycles[id]?.mission,
        sessions[Self.workerID(of: mission)] == nil
      else { continue }
      actions.append(.resume(worker: Self.workerID(of: mission), missionID: id))
    }
    return actions
  }

  // MARK: - Actions

  /// The transition `action` takes on mission `id` at `time`, without taking it; nil when
  /// the action changes nothing.
  /// - Parameter worker: The accepting worker for `accept` (default `local`).
  /// - Throws: `TrackingError.unknownMission`, `.illegalTransition`, or `.workerBusy` when
  ///   the start would give the mission's worker a second tracked mission.
  package func transition(
    _ action: MissionAction, on id: String, worker: String? = nil, at time: Date
  ) throws(TrackingError) -> MissionTransition? {
    guard let lifecycle = lifecycles[id] else { throw .unknownMission(id) }
    guard let transition = try lifecycle.transition(for: action, at: time, worker: worker) else {
      return nil
    }
    let owner = transition.workerID ?? Worker.localID
    if transition.to.isTracking && !transition.from.isTracking,
      let tracked = trackedMissions[owner], tracked != id
    {
      throw .workerBusy(workerID: owner, tracked: tracked, requested: id)
    }
    return transition
  }

  /// Checks `action` and, when it takes a mission out of tracking, finishes its worker's
  /// session first: the held-back epoch and the rejection summary belong to the session
  /// and are recorded before the transition that ends it (they may make it arrive first).
  /// Take the transition (`transition(_:on:worker:at:)`) after executing these.
  /// - Throws: As `transition(_:on:worker:at:)`.
  package mutating func prepare(
    _ action: MissionAction, on id: String, worker: String? = nil, at time: Date
  ) throws(TrackingError) -> [EngineAction] {
    guard let taken = try transition(action, on: id, worker: worker, at: time),
      taken.from.isTracking, !taken.to.isTracking,
      let mission = lifecycles[id]?.mission
    else { return [] }
    let owner = Self.workerID(of: mission)
    guard sessions[owner]?.missionID == id,
      let steps = sessions[owner]?.finish(mayArrive: mission.state == .active)
    else { return [] }
    return actions(for: steps, missionID: id)
  }

  /// Transition `transition` is durable: applies it and returns its effects — the `state`
  /// event, the worker's source closed or its session started, `mission_nearby` for watches
  /// entered, and after an arrival the worker's reports that followed the entering one.
  package mutating func committed(_ transition: MissionTransition) -> [EngineAction] {
    guard var lifecycle = lifecycles[transition.missionID] else { return [] }
    let old = lifecycle.mission
    var actions: [EngineAction] = []
    var starts = false
    for effect in lifecycle.commit(transition) {
      switch effect {
      case .startTracking: starts = true
      case .stopTracking:
        let worker = Self.workerID(of: old)
        if sessions[worker]?.missionID == old.id {
          actions += endSession(of: worker, .missionStopped(transition.to))
        }
      case .emit(let event): actions.append(.publish([event]))
      }
    }
    let mission = lifecycle.mission
    actions += setMission(mission, id: mission.id, lifecycle: lifecycle, at: transition.time)
    if starts {
      actions += startSession(missionID: mission.id, resume: nil, startTime: transition.time)
    }
    if transition.action == .arrive {
      let worker = Self.workerID(of: mission)
      if sessions[worker]?.missionID == mission.id {
        let fences = fenceQuery(excluding: mission.id)
        if let steps = sessions[worker]?.continueReports(mayArrive: false, fencesNear: fences) {
          actions += self.actions(for: steps, missionID: mission.id)
        }
      }
    }
    return actions
  }

  /// The open or accepted missions whose deadline has passed at `time`, sorted.
  package func dueMissions(at time: Date) -> [String] {
    deadlineIDs.filter { lifecycles[$0]?.isDue(at: time) == true }.sorted()
  }

  // MARK: - Sessions

  /// Starts the session of tracked mission `missionID`'s worker (when it has none),
  /// resumed from `resume`, and opens its source.
  package mutating func startSession(
    missionID: String, resume: TrackingPipeline.Resume?, startTime: Date?
  ) -> [EngineAction] {
    guard !isShutDown, let mission = lifecycles[missionID]?.mission, mission.state.isTracking
    else { return [] }
    let worker = Self.workerID(of: mission)
    guard sessions[worker] == nil else { return [] }
    generation += 1
    lastEnds[worker] = nil
    sessions[worker] = WorkerSession(
      workerID: worker, mission: mission, generation: generation, startTime: startTime,
      configuration: configuration, resume: resume,
      fencesInside: fencesInside(resume, excluding: missionID))
    return [.openSource(worker: worker, generation: generation)]
  }

  /// The fences of other missions the worker was inside when `resume` was stored, wherever
  /// the worker is now, so that they can still exit and are never entered twice.
  private func fencesInside(_ resume: TrackingPipeline.Resume?, excluding missionID: String)
    -> [Geofence]
  {
    guard configuration.evaluatesOtherFences, let resume else { return [] }
    return resume.fenceStates.filter { $0.value.isInside && $0.key != missionID }.keys
      .sorted().compactMap { lifecycles[$0].map { Geofence(mission: $0.mission) } }
  }

  /// Another process recorded `worker`'s decisions since its session read them
  /// (`TrackingError.decidedElsewhere`): the session continues from the store's `resume`,
  /// the same generation and start, as a restart would; its cleaning counts so far are kept
  /// in the totals. Nothing to do when the worker has no session any more.
  package mutating func resynchronize(worker: String, resume: TrackingPipeline.Resume?) {
    guard let session = sessions[worker], let mission = lifecycles[session.missionID]?.mission,
      mission.state.isTracking
    else { return }
    endedSummary.add(session.pipeline.summary)
    sessions[worker] = WorkerSession(
      workerID: worker, mission: mission, generation: session.generation,
      startTime: session.startTime, configuration: configuration, resume: resume,
      fencesInside: fencesInside(resume, excluding: mission.id))
  }

  /// A batch of reports from session `generation` of `worker`'s source (dropped when that
  /// session is gone: reports still queued when the source closed).
  package mutating func reports(_ batch: [SourceReport], worker: String, generation: Int)
    -> [EngineAction]
  {
    let current = inPlace(worker) { session in
      session.generation == generation && !session.isFinished ? session.missionID : nil
    }
    guard let id = current else { return [] }
    let mayArrive = lifecycles[id]?.state == .active
    let fences = fenceQuery(excluding: id)
    guard let steps = sessions[worker]?.process(batch, mayArrive: mayArrive, fencesNear: fences)
    else { return [] }
    return actions(for: steps, missionID: id)
  }

  /// Pushed fixes of `worker`, in fix-time order: the fixes of a worker with no running
  /// session, or dated before its mission's start, are left out (counted `untracked`).
  package mutating func ingest(_ fixes: [Fix], worker: String) -> (
    actions: [EngineAction], processed: Int, untracked: Int
  ) {
    let running = inPlace(worker) { session in
      session.isFinished ? nil : (start: session.startTime, generation: session.generation)
    }
    guard let (start, generation) = running else { return ([], 0, fixes.count) }
    // Stable: fixes of one time keep their order (an epoch's reports are merged in order).
    let ordered = fixes.enumerated().sorted {
      ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
    }
    let tracked = ordered.compactMap { item -> SourceReport? in
      if let start, item.element.time < start { return nil }
      return .fix(item.element)
    }
    let actions = reports(tracked, worker: worker, generation: generation)
    return (actions, tracked.count, fixes.count - tracked.count)
  }

  /// After pushed fixes of `worker` were processed: their last epoch released, since a
  /// phone's position is whole and nothing waits for a next report (DESIGN §8).
  package mutating func ingested(worker: String) -> [EngineAction] {
    guard let id = inPlace(worker, { $0.missionID }) else { return [] }
    let mayArrive = lifecycles[id]?.state == .active
    guard let steps = sessions[worker]?.releaseHeldEpoch(mayArrive: mayArrive) else { return [] }
    return actions(for: steps, missionID: id)
  }

  /// `worker`'s source of session `generation` ended, with `error` or by itself: the
  /// session is finished and recorded, then ends.
  package mutating func sourceEnded(
    worker: String, generation: Int, error: String?, now: Date
  ) -> [EngineAction] {
    guard let session = sessions[worker], session.generation == generation else { return [] }
    let id = session.missionID
    let mayArrive = lifecycles[id]?.state == .active
    guard
      let steps = sessions[worker]?.sourceEnded(error: error, mayArrive: mayArrive, now: now)
    else { return [] }
    var actions = self.actions(for: steps, missionID: id)
    actions.append(.flush)
    if let error { failure = error }
    actions += endSession(of: worker, error.map { .failed($0) } ?? .sourceEnded)
    return actions
  }

  /// Executing `worker`'s actions failed with `error`: another process's stop
  /// (`changedElsewhere`) ends the session as a stop; any other error stops tracking and
  /// is kept in `failure`.
  package mutating func failed(worker: String, error: any Error, now: Date) -> [EngineAction] {
    if case TrackingError.changedElsewhere(let id, let state) = error,
      var changed = lifecycles[id]?.mission
    {
      changed.state = state
      var actions = setMission(
        changed, id: id, lifecycle: MissionLifecycle(mission: changed), at: now)
      actions += endSession(
        of: worker, state.isTracking ? .failed("\(error)") : .missionStopped(state))
      return actions
    }
    failure = "\(error)"
    var actions: [EngineAction] = []
    if let session = sessions[worker] {
      actions.append(
        .publish([
          session.sourceEvent(.disconnected, detail: "tracking stopped: \(error)", now: now)
        ]))
    }
    return actions + endSession(of: worker, .failed("\(error)"))
  }

  /// Keeps `error` as the failure unless one is kept already (during a shutdown).
  package mutating func noteFailure(_ error: any Error) {
    if failure == nil { failure = "\(error)" }
  }

  /// Starts the shutdown: no session starts any more. Returns the workers with a session,
  /// sorted, to be finished one by one (`finishForShutdown`).
  package mutating func beginShutdown() -> [String] {
    isShutDown = true
    return sessions.keys.sorted()
  }

  /// Finishes `worker`'s session for a shutdown: the held-back epoch, then, when `reason`
  /// is given, a `source` `ended` event with it.
  package mutating func finishForShutdown(worker: String, reason: String?, now: Date)
    -> [EngineAction]
  {
    guard let id = sessions[worker]?.missionID,
      let steps = sessions[worker]?.shutDown(
        reason: reason, mayArrive: lifecycles[id]?.state == .active, now: now)
    else { return [] }
    return actions(for: steps, missionID: id)
  }

  /// Ends every session with `end`.
  package mutating func endAllSessions(_ end: TrackingEnd) -> [EngineAction] {
    sessions.keys.sorted().flatMap { endSession(of: $0, end) }
  }

  // MARK: - Watches

  /// Adds or replaces `watch`, starting with its current result set (no events).
  package mutating func addWatch(_ watch: Watch) {
    watchBook.add(watch, members: currentMembers(of: watch))
  }

  /// Removes watch `id`; false when there was none.
  package mutating func removeWatch(id: String) -> Bool { watchBook.remove(id: id) }

  private func currentMembers(of watch: Watch) -> Set<String> {
    let state = watch.state
    let matches =
      (try? directory.missions(
        within: watch.radiusMeters, of: watch.coordinate,
        where: state.map { wanted in { $0 == wanted } })) ?? []
    return Set(matches.map(\.match.id))
  }

  // MARK: - Helpers

  /// Ends `worker`'s session with `end`: its source closes at once and its waiters wake.
  private mutating func endSession(of worker: String, _ end: TrackingEnd) -> [EngineAction] {
    guard let session = sessions.removeValue(forKey: worker) else { return [] }
    lastSummaries[worker] = session.pipeline.summary
    endedSummary.add(session.pipeline.summary)
    lastEnds[worker] = end
    return [.closeSource(worker: worker), .endTracking(worker: worker, end)]
  }

  /// Replaces mission `id` (nil: removes it) and keeps the tracked missions, deadlines,
  /// directory, sessions' nearby fences and watches in step: the one place where the
  /// engine's view of a mission changes. Returns the `mission_nearby` events to record.
  private mutating func setMission(
    _ mission: Mission?, id: String, lifecycle: MissionLifecycle?, at time: Date,
    updatesDirectory: Bool = true, forgetsFences: Bool = true, old given: Mission? = nil
  ) -> [EngineAction] {
    let old = given ?? lifecycles[id]?.mission
    lifecycles[id] = lifecycle
    if let old, old.state.isTracking {
      let worker = Self.workerID(of: old)
      let stays = mission.map { $0.state.isTracking && Self.workerID(of: $0) == worker } ?? false
      if trackedMissions[worker] == id, !stays { trackedMissions[worker] = nil }
    }
    if let mission, mission.state.isTracking {
      let worker = Self.workerID(of: mission)
      if trackedMissions[worker] == nil { trackedMissions[worker] = id }
    }
    if mission?.deadline != nil { deadlineIDs.insert(id) } else { deadlineIDs.remove(id) }
    if updatesDirectory { directory.set(mission, id: id) }
    // Only a change of place, radius or finality changes another session's fences.
    let fenceChanged =
      old?.coordinate != mission?.coordinate
      || old?.geofenceRadiusMeters != mission?.geofenceRadiusMeters
      || old?.state.isFinal != mission?.state.isFinal
    if forgetsFences, fenceChanged, !sessions.isEmpty {
      // Fences of other missions changed near a worker: query them again at its next fix.
      let places = [old?.coordinate, mission?.coordinate].compactMap { $0 }
      // Over a copy of the keys, not of the sessions: each is changed in place.
      for worker in Array(sessions.keys) where sessions[worker]?.missionID != id {
        sessions[worker]?.forgetNearbyFences(ifNear: places)
      }
    }
    let events = watchBook.update(from: old, to: mission, at: time)
    return events.isEmpty ? [] : [.recordEvents(events)]
  }

  /// The actions of a session's steps: an arrival becomes its `arrive` transition, after
  /// a flush like every transition.
  private func actions(for steps: [WorkerSession.Step], missionID: String) -> [EngineAction] {
    steps.flatMap { step -> [EngineAction] in
      switch step {
      case .record(let batch): return [.record(batch)]
      case .arrive(let time):
        guard let lifecycle = lifecycles[missionID],
          let transition = try? lifecycle.transition(for: .arrive, at: time)
        else { return [] }
        return [.flush, .commit(transition)]
      }
    }
  }

  /// The fences of the unfinished missions near a point, but mission `id`'s own.
  private func fenceQuery(excluding id: String) -> (Coordinate) -> [Geofence] {
    let directory = self.directory
    let radius = configuration.nearbyRadiusMeters
    return { point in
      let matches =
        (try? directory.missions(within: radius, of: point, where: { !$0.isFinal })) ?? []
      return matches.compactMap { match, mission in
        match.id == id ? nil : Geofence(mission: mission)
      }
    }
  }
}
