import Foundation
import MissionFiles
import MissionTracking

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
  ///   `TrackingError.anotherMissionActive` when it would make a second mission active;
  ///   `StoreError.missionNotFound`; `StoreError.sqlite`.
  @discardableResult
  public func apply(_ action: MissionAction, toMission id: String, at time: Date = Date())
    throws -> MissionTransition
  {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try commitPendingLocked(connection)
      return try connection.transaction {
        guard let mission = try missionLocked(id, connection) else {
          throw StoreError.missionNotFound(id)
        }
        guard
          let transition = try MissionLifecycle(mission: mission).transition(for: action, at: time)
        else {
          return MissionTransition(
            missionID: id, action: action, from: mission.state, to: mission.state, time: time)
        }
        try commitTransitionLocked(transition, connection)
        return transition
      }
    }
  }

  /// Records a transition decided elsewhere (by the engine), in its own transaction, after
  /// the pending events.
  /// - Throws: `TrackingError.changedElsewhere` when the stored state is not
  ///   `transition.from` (another process changed the mission first);
  ///   `TrackingError.anotherMissionActive`; `StoreError`.
  public func commit(_ transition: MissionTransition) throws {
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
    let select = try connection.cached("SELECT state FROM missions WHERE id = ?")
    defer { select.reset() }
    try select.bind(id, at: 1)
    guard try select.step() else { throw StoreError.missionNotFound(id) }
    let text = select.string(at: 0) ?? ""
    guard let state = MissionState(rawValue: text) else {
      throw StoreError.sqlite(
        code: 0, message: "unknown state '\(text)' for mission \(id)", sql: select.sql)
    }
    return state
  }

  /// The mission in a tracking state other than `id`, if any.
  func trackedMissionLocked(otherThan id: String, _ connection: SQLiteConnection) throws
    -> String?
  {
    let select = try connection.cached(
      "SELECT id FROM missions WHERE state IN ('active', 'arrived') AND id != ? LIMIT 1")
    defer { select.reset() }
    try select.bind(id, at: 1)
    return try select.step() ? select.string(at: 0) : nil
  }

  /// Updates the mission's state, appends the audit row and the `state` event (inside the
  /// caller's transaction).
  private func commitTransitionLocked(
    _ transition: MissionTransition, _ connection: SQLiteConnection
  ) throws {
    if transition.to.isTracking && !transition.from.isTracking,
      let active = try trackedMissionLocked(otherThan: transition.missionID, connection)
    {
      // The unique index `missions_one_tracked` would refuse it too; this names the holder.
      throw TrackingError.anotherMissionActive(active: active, requested: transition.missionID)
    }
    let time = microseconds(transition.time)
    let update = try connection.cached(
      "UPDATE missions SET state = ?, updated_us = ? WHERE id = ?")
    try update.bind(transition.to.rawValue, at: 1)
    try update.bind(time, at: 2)
    try update.bind(transition.missionID, at: 3)
    try update.run()
    let insert = try connection.cached(
      """
      INSERT INTO transitions (mission_id, action, from_state, to_state, time_us)
      VALUES (?, ?, ?, ?, ?)
      """)
    try insert.bind(transition.missionID, at: 1)
    try insert.bind(transition.action.rawValue, at: 2)
    try insert.bind(transition.from.rawValue, at: 3)
    try insert.bind(transition.to.rawValue, at: 4)
    try insert.bind(time, at: 5)
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
      WHERE mission_id = ? ORDER BY seq DESC LIMIT 1
      """)
    defer { select.reset() }
    try select.bind(id, at: 1)
    guard try select.step() else { return nil }
    return transition(from: select, missionID: id, offset: 0)
  }

  /// Reads `action, from_state, to_state, time_us` starting at column `offset`.
  func transition(from row: SQLiteStatement, missionID: String, offset: Int32)
    -> MissionTransition
  {
    MissionTransition(
      missionID: missionID,
      // Rows are written only with known actions; a newer schema is refused on open.
      action: row.string(at: offset).flatMap(MissionAction.init(rawValue:)) ?? .start,
      from: MissionState(rawValue: row.string(at: offset + 1) ?? "") ?? .open,
      to: MissionState(rawValue: row.string(at: offset + 2) ?? "") ?? .open,
      time: date(microseconds: row.int64(at: offset + 3)))
  }

  /// The audit log of mission `id`, oldest first.
  /// - Throws: `StoreError.missionNotFound`, `StoreError.sqlite`.
  public func transitions(ofMission id: String) throws -> [MissionTransition] {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try ensureKnownLocked(id, connection)
      let select = try connection.cached(
        """
        SELECT action, from_state, to_state, time_us FROM transitions
        WHERE mission_id = ? ORDER BY seq
        """)
      defer { select.reset() }
      try select.bind(id, at: 1)
      var result: [MissionTransition] = []
      while try select.step() { result.append(transition(from: select, missionID: id, offset: 0)) }
      return result
    }
  }
}
