import Foundation
import MissionTracking

extension MissionDatabase {
  /// Accepts one tracker event for the group-committed write path.
  ///
  /// - `fix` events add the delivered fix to the mission's track (a fix at a time the track
  ///   already holds is a replay and is skipped with its event);
  /// - `enter`, `dwell`, `exit` update the mission's fence state;
  /// - `rejected` adds its count to the mission's ingest statistics;
  /// - every event is stored in the events table with its JSON line.
  ///
  /// The event is committed with its batch (see `GroupCommitPolicy`). A `state` event is not
  /// batched: the pending batch and then the transition commit at once, so that a transition
  /// is durable before its effects; if `apply(_:toMission:at:)` already committed that same
  /// transition, the event is a duplicate and is skipped.
  ///
  /// - Throws: `StoreError.missionNotFound` for an event of an unknown mission (refused before
  ///   it enters the batch), `StoreError.stateConflict` for a `state` event that contradicts
  ///   the stored state, `StoreError.sqlite` when a commit fails (the batch is kept and
  ///   retried by the next commit or `flush()`).
  /// - Complexity: amortised O(1) per event plus its index updates.
  public func record(_ event: TrackingEvent) throws {
    try withConnection { connection in try recordLocked(event, connection) }
  }

  /// Accepts several events in order, taking the lock once (see `record(_:)`). When one is
  /// refused, the events before it stay accepted and the rest are not looked at.
  public func record(contentsOf events: some Sequence<TrackingEvent>) throws {
    try withConnection { connection in
      for event in events { try recordLocked(event, connection) }
    }
  }

  /// Commits every pending event now.
  /// - Throws: `StoreError` when the commit fails (the events stay pending).
  public func flush() throws {
    try withConnection { connection in try commitPendingLocked(connection) }
  }

  /// How many recorded events are waiting for their commit.
  public var pendingEventCount: Int { locked { batch.count } }

  private func recordLocked(_ event: TrackingEvent, _ connection: SQLiteConnection) throws {
    try ensureKnownLocked(event.missionID, connection)
    if case .state(let from, let to) = event.kind {
      try commitPendingLocked(connection)
      try recordStateEventLocked(event, from: from, to: to, connection)
      return
    }
    let first = batch.append(event)
    let policy = configuration.groupCommit
    if batch.count >= policy.maxEvents || policy.maxDelay <= .zero {
      try commitPendingLocked(connection)
    } else if first {
      scheduleCommit(generation: batch.generation, after: policy.maxDelay)
    }
  }

  /// Fails unless mission `id` is stored (cached once seen).
  func ensureKnownLocked(_ id: String, _ connection: SQLiteConnection) throws {
    if knownMissions.contains(id) { return }
    let statement = try connection.cached("SELECT 1 FROM missions WHERE id = ?")
    defer { statement.reset() }
    try statement.bind(id, at: 1)
    guard try statement.step() else { throw StoreError.missionNotFound(id) }
    knownMissions.insert(id)
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
      guard let connection, batch.generation == generation, !batch.isEmpty else { return }
      do {
        try commitPendingLocked(connection)
      } catch {
        deferredError = error
      }
    }
  }

  /// Writes the pending batch in one transaction; on failure it stays pending.
  func commitPendingLocked(_ connection: SQLiteConnection) throws {
    guard !batch.isEmpty else { return }
    var delta = IngestCounters()
    let events = batch.events
    try connection.transaction {
      var start = events.startIndex
      while start < events.endIndex {
        guard events[start].isFix else {
          try write(events[start], connection, &delta)
          start += 1
          continue
        }
        var end = start + 1
        while end < events.endIndex, end - start < Self.fixRunLength, events[end].isFix,
          events[end].missionID == events[start].missionID
        {
          end += 1
        }
        try writeFixRun(events[start..<end], connection, &delta)
        start = end
      }
    }
    delta.commits = 1
    counters.events += delta.events
    counters.fixes += delta.fixes
    counters.duplicateFixes += delta.duplicateFixes
    counters.commits += delta.commits
    batch.committed()
  }

  private func write(
    _ event: TrackingEvent, _ connection: SQLiteConnection, _ delta: inout IngestCounters
  ) throws {
    let time = microseconds(event.time)
    switch event.kind {
    case .fix:
      try writeFixRun([event][...], connection, &delta)
      return
    case .enter(let fence, _, _):
      try saveFenceLocked(
        FenceState(isInside: true, insideSince: event.time), missionID: event.missionID,
        fenceID: fence, updated: time, connection)
    case .exit(let fence, _):
      try saveFenceLocked(
        FenceState(), missionID: event.missionID, fenceID: fence, updated: time, connection)
    case .dwell(let fence, let seconds):
      let dwell = try connection.cached(
        """
        INSERT INTO fence_state (mission_id, fence_id, inside, since_us, dwell_reported,
          updated_us) VALUES (?, ?, 1, ?, 1, ?)
        ON CONFLICT (mission_id, fence_id) DO UPDATE SET inside = 1, dwell_reported = 1,
          since_us = coalesce(fence_state.since_us, excluded.since_us),
          updated_us = excluded.updated_us
        """)
      try dwell.bind(event.missionID, at: 1)
      try dwell.bind(fence, at: 2)
      try dwell.bind(microseconds(event.time.addingTimeInterval(-seconds)), at: 3)
      try dwell.bind(time, at: 4)
      try dwell.run()
    case .rejected(let reason, let count):
      let add = try connection.cached(
        """
        INSERT INTO ingest_rejections (mission_id, reason, count) VALUES (?, ?, ?)
        ON CONFLICT (mission_id, reason) DO UPDATE SET count = count + excluded.count
        """)
      try add.bind(event.missionID, at: 1)
      try add.bind(reason, at: 2)
      try add.bind(count, at: 3)
      try add.run()
    case .crossed, .source, .state:
      break
    }
    try insertEventLocked(event, time: time, connection)
    delta.events += 1
  }

  func insertEventLocked(_ event: TrackingEvent, time: Int64, _ connection: SQLiteConnection)
    throws
  {
    let insert = try connection.cached(
      "INSERT INTO events (mission_id, type, time_us, json) VALUES (?, ?, ?, ?)")
    try insert.bind(event.missionID, at: 1)
    try insert.bind(event.type, at: 2)
    try insert.bind(time, at: 3)
    try insert.bind(event.jsonLine, at: 4)
    try insert.run()
  }

  func saveFenceLocked(
    _ state: FenceState, missionID: String, fenceID: String, updated: Int64,
    _ connection: SQLiteConnection
  ) throws {
    let save = try connection.cached(
      """
      INSERT INTO fence_state (mission_id, fence_id, inside, since_us, dwell_reported,
        updated_us) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (mission_id, fence_id) DO UPDATE SET inside = excluded.inside,
        since_us = excluded.since_us, dwell_reported = excluded.dwell_reported,
        updated_us = excluded.updated_us
      """)
    try save.bind(missionID, at: 1)
    try save.bind(fenceID, at: 2)
    try save.bind(state.isInside ? 1 : 0, at: 3)
    try save.bind(state.insideSince.map(microseconds), at: 4)
    try save.bind(state.dwellReported ? 1 : 0, at: 5)
    try save.bind(updated, at: 6)
    try save.run()
  }

  /// Stores a fence state directly (for a tracker that keeps its own evaluator state), after
  /// committing pending events; commits at once.
  /// - Throws: `StoreError.missionNotFound`, `StoreError.sqlite`.
  public func saveFenceState(
    _ state: FenceState, missionID: String, fenceID: String, at time: Date = Date()
  ) throws {
    try withConnection { connection in
      try ensureKnownLocked(missionID, connection)
      try commitPendingLocked(connection)
      try connection.transaction {
        try saveFenceLocked(
          state, missionID: missionID, fenceID: fenceID, updated: microseconds(time),
          connection)
      }
    }
  }
}

extension TrackingEvent {
  /// Whether this is a `fix` event (they are written in runs).
  fileprivate var isFix: Bool {
    if case .fix = kind { return true }
    return false
  }
}
