import Foundation
import MissionTracking

extension MissionDatabase {
  /// Accepts the events of one tracker report, with the fence states and travelled
  /// distance the engine decided, for the group-committed write path.
  ///
  /// - `fix` events add the delivered fix to the mission's track (a fix at a time the track
  ///   already holds is a replay and is skipped with its event);
  /// - `rejected` adds its count to the mission's ingest statistics;
  /// - every event is stored in the events table;
  /// - the batch's fence states and distance are stored as given (never derived here).
  ///
  /// The batch is committed with its group (see `GroupCommitPolicy`). At commit, a mission
  /// that another process took out of tracking (submitted, cancelled) makes the whole group
  /// be dropped and `TrackingError.changedElsewhere` thrown: nothing is recorded after a
  /// stop. `state` events are not accepted here: transitions go through
  /// `commit(_:)` or `apply(_:toMission:at:)`.
  ///
  /// - Throws: `StoreError.missionNotFound` for an unknown mission (refused before it
  ///   enters the group), `StoreError.invalidEvent` for a `state` event,
  ///   `TrackingError.changedElsewhere`, `StoreError.sqlite` when a commit fails (the group
  ///   is kept and retried by the next commit or `flush()`).
  /// - Complexity: amortised O(1) per event plus its index updates.
  package func record(_ batch: TrackingBatch) throws {
    try checkRecordable(batch.events)
    let time = batch.events.last.map { microseconds($0.time) } ?? microseconds(Date())
    try accept(batch.missionID) { $0.append(batch, time: time) }
  }

  /// Accepts one event that carries no fence state (see `record(_:)` for a batch).
  package func record(_ event: TrackingEvent) throws {
    try record(contentsOf: [event])
  }

  /// Accepts several events of any missions, in order, each as `record(_:)` would alone
  /// (a full batch commits between them). When one is refused before the group, none is
  /// accepted.
  package func record(contentsOf events: some Sequence<TrackingEvent>) throws {
    let events = Array(events)
    try checkRecordable(events)
    try withConnection { connection in
      var checked: String?
      for event in events where event.missionID != checked {
        try ensureKnownLocked(event.missionID, connection)
        checked = event.missionID
      }
      for event in events {
        let commitNow = try recording {
          try acceptingLocked { $0.append(events: CollectionOfOne(event)) }
        }
        if commitNow { try commitPendingLocked(connection) }
      }
    }
  }

  /// Commits every pending event now, after the commit under way (if any).
  /// - Throws: `StoreError` when the commit fails (the events stay pending),
  ///   `TrackingError.changedElsewhere` when they were dropped.
  package func flush() throws {
    try withConnection { connection in try commitPendingLocked(connection) }
  }

  /// How many recorded events are waiting for their commit (the one under way included).
  package var pendingEventCount: Int { recording { batch.count + committingCount } }

  private func checkRecordable(_ events: [TrackingEvent]) throws {
    for event in events {
      if case .state = event.kind {
        throw StoreError.invalidEvent(
          "a state event for mission \(event.missionID) is recorded by its transition, not as an event"
        )
      }
    }
  }

  /// Adds to the pending batch with `append` once mission `missionID` is known to be stored,
  /// and commits when the batch is full. A mission seen before takes only `recordingLock`:
  /// a commit under way is not waited for.
  private func accept(_ missionID: String, _ append: (inout EventBatch) -> Bool) throws {
    let known = try recording { () throws -> Bool? in
      guard knownMissions.contains(missionID) else { return nil }
      return try acceptingLocked(append)
    }
    switch known {
    case false?: return
    case true?: try flush()
    case nil:
      try withConnection { connection in
        try ensureKnownLocked(missionID, connection)
        if try recording({ try acceptingLocked(append) }) {
          try commitPendingLocked(connection)
        }
      }
    }
  }

  /// Holding `recordingLock`: adds with `append` unless closed or a background commit
  /// failed (thrown), arms the timer for a new batch, and returns whether the batch must
  /// commit now.
  private func acceptingLocked(_ append: (inout EventBatch) -> Bool) throws -> Bool {
    guard acceptsRecords else { throw StoreError.closed(path: path) }
    try throwDeferredErrorLocked()
    let first = append(&batch)
    let policy = configuration.groupCommit
    if batch.count >= policy.maxEvents || policy.maxDelay <= .zero { return true }
    if first { scheduleCommit(generation: batch.generation, after: policy.maxDelay) }
    return false
  }

  /// Fails unless mission `id` is stored (cached once seen).
  func ensureKnownLocked(_ id: String, _ connection: SQLiteConnection) throws {
    if recording({ knownMissions.contains(id) }) { return }
    let statement = try connection.cached("SELECT 1 FROM missions WHERE id = :id")
    defer { statement.reset() }
    try statement.bind(["id": id])
    guard try statement.step() else { throw StoreError.missionNotFound(id) }
    recording { _ = knownMissions.insert(id) }
  }

  private func scheduleCommit(generation: Int, after delay: Duration) {
    let (seconds, attoseconds) = delay.components
    let interval = Double(seconds) + Double(attoseconds) * 1e-18
    DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + interval) {
      [weak self] in
      self?.commitIfStill(generation: generation)
    }
  }

  /// The timer's commit: only if the batch it was armed for is still pending.
  private func commitIfStill(generation: Int) {
    locked {
      guard let connection,
        recording({ batch.generation == generation && !batch.isEmpty })
      else { return }
      do {
        try commitPendingLocked(connection)
      } catch {
        recording { deferredError = error }
      }
    }
  }

  /// Writes the pending batch in one transaction; on failure it is pending again, ahead of
  /// what was recorded meanwhile. Holding `lock`: the batch is taken out under
  /// `recordingLock`, so recording goes on while it is written and synced.
  func commitPendingLocked(_ connection: SQLiteConnection) throws {
    guard
      let pending = recording({ () -> EventBatch? in
        let taken = batch.take()
        committingCount = taken?.count ?? 0
        return taken
      })
    else { return }
    var delta = IngestCounters()
    do {
      try connection.transaction {
        try checkTrackedLocked(pending.missionIDs.sorted(), connection)
        try writeEventsLocked(pending.events, connection, &delta)
        try saveFenceStatesLocked(Array(pending.fences.values), connection)
        try saveTravelledLocked(
          pending.travelled.map {
            (id: $0.key, meters: $0.value.meters, updated: $0.value.updated)
          },
          connection)
      }
    } catch {
      recording {
        // Another process stopped the mission (`TrackingError`): what it did not see is
        // never recorded. Any other failure keeps the events pending.
        if !(error is TrackingError) { batch.restore(pending) }
        committingCount = 0
      }
      throw error
    }
    recording { committingCount = 0 }
    delta.commits = 1
    counters.events += delta.events
    counters.fixes += delta.fixes
    counters.duplicateFixes += delta.duplicateFixes
    counters.commits += delta.commits
  }

  private func writeEventsLocked(
    _ events: [TrackingEvent], _ connection: SQLiteConnection, _ delta: inout IngestCounters
  ) throws {
    var start = events.startIndex
    while start < events.endIndex {
      guard events[start].isFix else {
        try write(events[start], connection, &delta)
        start += 1
        continue
      }
      // A run of consecutive fixes, of one mission or many (see `writeFixRun`).
      var end = start + 1
      while end < events.endIndex, end - start < Self.fixRunLength, events[end].isFix {
        end += 1
      }
      try writeFixRun(events[start..<end], connection, &delta)
      start = end
    }
  }

  private func write(
    _ event: TrackingEvent, _ connection: SQLiteConnection, _ delta: inout IngestCounters
  ) throws {
    let time = microseconds(event.time)
    switch event.kind {
    case .fix:
      try writeFixRun([event][...], connection, &delta)
      return
    case .rejected(let reason, let count):
      let add = try connection.cached(
        """
        INSERT INTO ingest_rejections (mission_id, reason, count)
        VALUES (:mission, :reason, :count)
        ON CONFLICT (mission_id, reason) DO UPDATE SET count = count + excluded.count
        """)
      try add.bind(["mission": event.missionID, "reason": reason, "count": count])
      try add.run()
    case .enter, .exit, .dwell, .crossed, .source, .state, .nearby:
      break
    }
    try insertEventLocked(event, time: time, connection)
    delta.events += 1
  }

  /// Appends `event` to the events table in its typed columns (`json` stays empty: the
  /// line is rebuilt from them on read).
  func insertEventLocked(_ event: TrackingEvent, time: Int64, _ connection: SQLiteConnection)
    throws
  {
    let insert = try connection.cached(
      """
      INSERT INTO events (mission_id, type, time_us, json, distance_m, fence_id, initial,
        seconds, from_state, to_state, status, detail, count, worker_id, watch_id)
      VALUES (:mission, :type, :time, '', :distance, :fence, :initial, :seconds, :from, :to,
        :status, :detail, :count, :worker, :watch)
      """)
    let columns = EventKindColumns(event.kind)
    try insert.bind([
      "mission": event.missionID, "type": event.type, "time": time, "distance": columns.distance,
      "fence": columns.fence, "initial": columns.initial.map { $0 ? 1 : 0 },
      "seconds": columns.seconds, "from": columns.from, "to": columns.to,
      "status": columns.status, "detail": columns.detail, "count": columns.count,
      "worker": event.workerID, "watch": columns.watch,
    ])
    try insert.run()
  }
}

extension TrackingEvent {
  /// Whether this is a `fix` event (they are written in runs).
  fileprivate var isFix: Bool {
    if case .fix = kind { return true }
    return false
  }
}
