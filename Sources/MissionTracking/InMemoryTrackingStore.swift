import Foundation

/// A `TrackingStore` in memory: for tests and for replaying a trace without a database.
///
/// It records what the engine decided — transitions, events, fence states, the delivered
/// track and the travelled distance — and keeps the same rules as the SQLite store: a
/// transition must start from the stored state, at most one mission per worker is in a
/// tracking state, and events of a mission that is no longer tracked are refused. `update(_:)` stands in for
/// another process writing the same store.
public actor InMemoryTrackingStore: TrackingStore {
  private var missions: [String: Mission] = [:]
  private var revisions: [String: Int64] = [:]
  private var removals: [(revision: Int64, id: String)] = []
  private var revision: Int64 = 0
  /// Every transition recorded, oldest first.
  public private(set) var transitions: [MissionTransition] = []
  /// Every event recorded (state events included), in order.
  public var events: [TrackingEvent] {
    settle()
    return settledEvents
  }
  /// Fence states by tracked mission, then by fence id.
  public private(set) var fenceStates: [String: [String: FenceState]] = [:]
  /// The delivered track of each mission.
  public var tracks: [String: [Fix]] {
    settle()
    return settledTracks
  }
  /// The distance travelled by each tracked mission, metres.
  public private(set) var travelledMeters: [String: Double] = [:]

  private var settledEvents: [TrackingEvent] = []
  private var settledTracks: [String: [Fix]] = [:]
  /// What was recorded since `events` or `tracks` was last read, as handed over (the
  /// engine's arrays, shared, not copied): a replay that never reads them pays no copy per
  /// event.
  private var unsettled: [(missionID: String, events: [TrackingEvent])] = []
  private var unsettledCount = 0
  private var storedWatches: [String: Watch] = [:]
  /// The tracked mission of each worker (the partial unique index of the SQLite store), so
  /// that a start does not look at every mission.
  private var trackedByWorker: [String: String] = [:]
  /// The last delivered fix of each mission (the end of its track).
  private var lastDelivered: [String: Fix] = [:]
  /// Whether `events` and `tracks` are kept (else only what a resume needs).
  private let keepsEvents: Bool

  /// Creates a store holding `missions`.
  public init(missions: [Mission] = []) {
    self.init(missions: missions, keepsEvents: true)
  }

  private static func worker(of mission: Mission) -> String { mission.workerID ?? Worker.localID }

  /// Creates a store holding `missions` that, unless `keepsEvents`, keeps no `events` and no
  /// `tracks` (both stay empty) but everything else, resume points included: for an owner
  /// that collects the engine's events itself and never reads them here (`TraceReplay`), so
  /// that every event's memory is held once, not twice.
  package init(missions: [Mission], keepsEvents: Bool) {
    self.keepsEvents = keepsEvents
    for mission in missions {
      revision += 1
      self.missions[mission.id] = mission
      revisions[mission.id] = revision
      if mission.state.isTracking { trackedByWorker[Self.worker(of: mission)] = mission.id }
    }
  }

  /// The stored form of mission `id`.
  public func mission(_ id: String) -> Mission? { missions[id] }

  /// Adds or replaces missions, as another process (an import) would.
  public func update(_ changed: [Mission]) {
    for mission in changed { store(mission) }
  }

  /// Removes a mission, as another process would.
  public func remove(_ id: String) {
    guard let old = missions.removeValue(forKey: id) else { return }
    if trackedByWorker[Self.worker(of: old)] == id { trackedByWorker[Self.worker(of: old)] = nil }
    revisions[id] = nil
    revision += 1
    removals.append((revision, id))
  }

  private func store(_ mission: Mission) {
    if let old = missions[mission.id], trackedByWorker[Self.worker(of: old)] == mission.id {
      trackedByWorker[Self.worker(of: old)] = nil
    }
    if mission.state.isTracking { trackedByWorker[Self.worker(of: mission)] = mission.id }
    revision += 1
    missions[mission.id] = mission
    revisions[mission.id] = revision
  }

  // MARK: - TrackingStore

  /// Missions changed after `token` (all when nil), sorted by id.
  public func changes(after token: Int64?) -> MissionChanges {
    let since = token ?? -1
    let changed = missions.values.filter { (revisions[$0.id] ?? 0) > since }
      .sorted { $0.id < $1.id }
    let removed = removals.filter { $0.revision > since }.map(\.id)
    return MissionChanges(token: revision, missions: changed, removedIDs: removed)
  }

  /// The stored fence states, last delivered fix and travelled distance of mission `id`.
  public func resumePoint(ofMission id: String) -> TrackingPipeline.Resume? {
    let fences = fenceStates[id] ?? [:]
    let last = lastDelivered[id]
    if fences.isEmpty && last == nil { return nil }
    return TrackingPipeline.Resume(
      fenceStates: fences, lastDelivered: last, travelledMeters: travelledMeters[id] ?? 0)
  }

  /// The time of mission `id`'s latest transition to `active`.
  public func trackingStart(ofMission id: String) -> Date? {
    transitions.last { $0.missionID == id && $0.to == .active }?.time
  }

  /// Records `transition` when it starts from the stored state.
  public func commit(_ transition: MissionTransition) throws {
    guard var mission = missions[transition.missionID] else {
      throw TrackingError.unknownMission(transition.missionID)
    }
    guard mission.state == transition.from else {
      throw TrackingError.changedElsewhere(missionID: mission.id, state: mission.state)
    }
    let worker = transition.workerID ?? mission.workerID ?? Worker.localID
    if transition.to.isTracking && !transition.from.isTracking,
      let active = trackedByWorker[worker], active != mission.id
    {
      throw TrackingError.workerBusy(workerID: worker, tracked: active, requested: mission.id)
    }
    mission.state = transition.to
    if let worker = transition.workerID { mission.workerID = worker }
    store(mission)
    transitions.append(transition)
    keep(missionID: mission.id, [transition.event])
  }

  /// Records the batch while its mission is tracked.
  public func record(_ batch: TrackingBatch) throws {
    guard let mission = missions[batch.missionID] else {
      throw TrackingError.unknownMission(batch.missionID)
    }
    guard mission.state.isTracking else {
      throw TrackingError.changedElsewhere(missionID: mission.id, state: mission.state)
    }
    for event in batch.events.reversed() {
      if case .fix(let fix, _, _) = event.kind {
        lastDelivered[batch.missionID] = fix
        break
      }
    }
    keep(missionID: batch.missionID, batch.events)
    fenceStates[batch.missionID, default: [:]].merge(batch.fenceStates) { $1 }
    travelledMeters[batch.missionID] = batch.travelledMeters
  }

  /// Nothing to do: every call is complete when it returns.
  public func flush() {}

  /// Records events of no tracking session (`mission_nearby`).
  public func recordEvents(_ events: [TrackingEvent]) {
    for event in events { keep(missionID: event.missionID, [event]) }
  }

  /// Every watch, by id.
  public func watches() -> [Watch] { storedWatches.values.sorted { $0.id < $1.id } }

  /// Adds or replaces a watch.
  public func saveWatch(_ watch: Watch) { storedWatches[watch.id] = watch }

  /// Removes a watch; false when there was none.
  public func removeWatch(id: String) -> Bool { storedWatches.removeValue(forKey: id) != nil }

  private func keep(missionID: String, _ recorded: [TrackingEvent]) {
    guard keepsEvents, !recorded.isEmpty else { return }
    unsettled.append((missionID, recorded))
    unsettledCount += recorded.count
  }

  /// Moves what was recorded since the last read into `events` and `tracks`.
  private func settle() {
    guard !unsettled.isEmpty else { return }
    settledEvents.reserveCapacity(settledEvents.count + unsettledCount)
    for (missionID, recorded) in unsettled {
      settledEvents.append(contentsOf: recorded)
      for event in recorded {
        if case .fix(let fix, _, _) = event.kind {
          settledTracks[missionID, default: []].append(fix)
        }
      }
    }
    unsettled.removeAll()
    unsettledCount = 0
  }
}
