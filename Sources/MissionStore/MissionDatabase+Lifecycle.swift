import Foundation
import MissionFiles
import MissionTracking
import TextRules

extension MissionDatabase {
  /// Applies a lifecycle action to a stored mission in one transaction and returns the
  /// transition, committed before the caller acts on it: the one-shot path of commands that
  /// run no engine (`missions accept`, …).
  ///
  /// Pending recorded events commit first, so the events table keeps their order. The
  /// decision is `MissionLifecycle`'s, on the stored mission. A changing action updates the
  /// mission, appends the transition (with `time`) to the audit log and stores its `state`
  /// event; an idempotent one (a second `start`, `submit`, …) changes and records nothing
  /// and returns a transition whose `from == to`.
  ///
  /// - Parameters:
  ///   - action: What to do.
  ///   - id: The mission.
  ///   - time: When, UTC (default now).
  /// - Returns: The transition; `to` is the mission's new state.
  /// - Throws: `TrackingError.illegalTransition` (naming the mission, its state and the
  ///   action) when the action is not allowed in the stored state — nothing is changed;
  ///   `TrackingError.workerBusy` when it would make a second mission of the mission's
  ///   worker tracked; `TrackingError.unknownWorker` when an `accept` names a worker the
  ///   store does not hold; `StoreError.missionNotFound`; another `StoreError`.
  @discardableResult
  package func apply(
    _ action: MissionAction, toMission id: String, worker: String? = nil, at time: Date = Date()
  ) throws -> MissionTransition {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try commitPendingLocked(connection)
      return try connection.transaction {
        guard let mission = try missionLocked(id, connection) else {
          throw StoreError.missionNotFound(id)
        }
        let transition = try MissionLifecycle(mission: mission).outcome(
          of: action, at: time, worker: worker.map(Identifier.normalized))
        if transition.from != transition.to { try commitTransitionLocked(transition, connection) }
        return transition
      }
    }
  }

  /// Records a transition decided elsewhere (by the engine), in its own transaction, after
  /// the pending events.
  /// - Throws: `TrackingError.changedElsewhere` when the stored state is not
  ///   `transition.from` (another process changed the mission first);
  ///   `TrackingError.workerBusy` when the mission's worker already tracks another mission;
  ///   `TrackingError.unknownWorker` when an `accept` names a worker the store does not
  ///   hold; another `StoreError`.
  package func commit(_ transition: MissionTransition) throws {
    try withConnection { connection in
      try commitPendingLocked(connection)
      try connection.transaction {
        let stored = try storedStateLocked(transition.missionID, connection)
        guard stored == transition.from else {
          throw TrackingError.changedElsewhere(missionID: transition.missionID, state: stored)
        }
        try commitTransitionLocked(transition, connection)
      }
    }
  }

  /// The stored state of mission `id`.
  func storedStateLocked(_ id: String, _ connection: SQLiteConnection) throws -> MissionState {
    let select = try connection.cached("SELECT state FROM missions WHERE id = :id")
    defer { select.reset() }
    try select.bind(["id": id])
    guard try select.step() else { throw StoreError.missionNotFound(id) }
    return try Self.storedState(try select.string("state") ?? "", of: id, sql: select.sql)
  }

  /// The state stored as `text` for mission `id` (read by `sql`, made only for the error).
  /// - Throws: `StoreError.sqlite` for text that names no state.
  static func storedState(_ text: String, of id: String, sql: @autoclosure () -> String) throws
    -> MissionState
  {
    guard let state = MissionState(rawValue: text) else {
      throw StoreError.sqlite(
        code: 0, message: "unknown state '\(text)' for mission \(id)", sql: sql())
    }
    return state
  }

  /// The stored worker of mission `id` (nil while nobody accepted it).
  func storedWorkerLocked(_ id: String, _ connection: SQLiteConnection) throws -> String? {
    let select = try connection.cached("SELECT worker_id FROM missions WHERE id = :id")
    defer { select.reset() }
    try select.bind(["id": id])
    guard try select.step() else { throw StoreError.missionNotFound(id) }
    return try select.string("worker_id")
  }

  /// Refuses to make mission `id` tracked (`state` active or arrived) for `worker` while
  /// another mission of that worker is: the one place that decides "at most one tracked
  /// mission per worker", for transitions, imports and replacements alike, naming the
  /// mission that holds it. (The schema's unique index `missions_one_tracked_per_worker`
  /// stays as the backstop no write gets past.) A `state` that is not tracked passes.
  /// - Throws: `StoreError.secondTrackedMission` naming the worker and the holder.
  static func refuseSecondTrackedLocked(
    _ id: String, state: MissionState, worker: String, _ connection: SQLiteConnection
  ) throws {
    guard state.isTracking else { return }
    let select = try connection.cached(
      """
      SELECT id FROM missions
      WHERE worker_id = :worker AND state IN ('active', 'arrived') AND id != :id LIMIT 1
      """)
    defer { select.reset() }
    try select.bind(["worker": worker, "id": id])
    guard try select.step() else { return }
    throw StoreError.secondTrackedMission(
      worker: worker, holder: try select.string("id") ?? "", requested: id, state: state)
  }

  /// Updates the mission's state (and, for `accept`, its worker), appends the audit row and
  /// the `state` event (inside the caller's transaction).
  ///
  /// The worker of every action but `accept` is the stored one: the transition's carries
  /// what the engine knew, the file says who accepted.
  private func commitTransitionLocked(
    _ transition: MissionTransition, _ connection: SQLiteConnection
  ) throws {
    let worker: String?
    if transition.action == .accept {
      let named = Identifier.normalized(transition.workerID ?? Worker.localID)
      guard try workerExistsLocked(named, connection) else {
        throw TrackingError.unknownWorker(named)
      }
      worker = named
    } else {
      worker = try storedWorkerLocked(transition.missionID, connection)
    }
    if !transition.from.isTracking {
      do {
        try Self.refuseSecondTrackedLocked(
          transition.missionID, state: transition.to, worker: worker ?? Worker.localID,
          connection)
      } catch StoreError.secondTrackedMission(let worker, let holder, let requested, _, _, _) {
        throw TrackingError.workerBusy(workerID: worker, tracked: holder, requested: requested)
      }
    }
    let time = microseconds(transition.time)
    let update = try connection.cached(
      """
      UPDATE missions SET state = :state, updated_us = :updated, worker_id = :worker
      WHERE id = :id
      """)
    try update.bind([
      "state": transition.to.rawValue, "updated": time, "worker": worker,
      "id": transition.missionID,
    ])
    try update.run()
    let insert = try connection.cached(
      """
      INSERT INTO transitions (mission_id, action, from_state, to_state, time_us)
      VALUES (:mission, :action, :from, :to, :time)
      """)
    try insert.bind([
      "mission": transition.missionID, "action": transition.action.rawValue,
      "from": transition.from.rawValue, "to": transition.to.rawValue, "time": time,
    ])
    try insert.run()
    try insertEventLocked(transition.event, time: time, connection)
    counters.events += 1
  }

  /// The most recent transition of mission `id`.
  func lastTransitionLocked(_ id: String, _ connection: SQLiteConnection) throws
    -> MissionTransition?
  {
    let select = try connection.cached(
      """
      SELECT action, from_state, to_state, time_us FROM transitions
      WHERE mission_id = :id ORDER BY seq DESC LIMIT 1
      """)
    defer { select.reset() }
    try select.bind(["id": id])
    guard try select.step() else { return nil }
    return try transition(from: select, missionID: id)
  }

  /// Reads the current row's `action, from_state, to_state, time_us`.
  func transition(from row: SQLiteStatement, missionID: String) throws -> MissionTransition {
    MissionTransition(
      missionID: missionID,
      // Rows are written only with known actions; a newer schema is refused on open.
      action: try row.string("action").flatMap(MissionAction.init(rawValue:)) ?? .start,
      from: MissionState(rawValue: try row.string("from_state") ?? "") ?? .open,
      to: MissionState(rawValue: try row.string("to_state") ?? "") ?? .open,
      time: date(microseconds: try row.int64("time_us")))
  }

  /// The audit log of mission `id`, oldest first.
  /// - Throws: `StoreError.missionNotFound`, `StoreError.sqlite`.
  package func transitions(ofMission id: String) throws -> [MissionTransition] {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try ensureKnownLocked(id, connection)
      let select = try connection.cached(
        """
        SELECT action, from_state, to_state, time_us FROM transitions
        WHERE mission_id = :id ORDER BY seq
        """)
      defer { select.reset() }
      try select.bind(["id": id])
      var result: [MissionTransition] = []
      while try select.step() { result.append(try transition(from: select, missionID: id)) }
      return result
    }
  }
}
