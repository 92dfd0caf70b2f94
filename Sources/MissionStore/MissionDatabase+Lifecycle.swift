import Foundation
import MissionTracking

extension MissionDatabase {
  /// Applies a lifecycle action to a stored mission in one transaction and returns the
  /// transition, committed before the caller acts on it (starts or stops the fix source).
  ///
  /// Pending recorded events commit first, so the events table keeps their order. The new
  /// state comes from `MissionAction.target(from:)`. A changing action updates the mission,
  /// appends the transition (with `time`) to the audit log and stores its `state` event; an
  /// idempotent one (a second `start`, `submit`, …) changes and records nothing and returns a
  /// transition whose `from == to`.
  ///
  /// - Parameters:
  ///   - action: What to do.
  ///   - id: The mission.
  ///   - time: When, UTC (default now).
  /// - Returns: The transition; `to` is the mission's new state.
  /// - Throws: `TrackingError.illegalTransition` (naming the mission, its state and the
  ///   action) when the action is not allowed in the stored state — nothing is changed;
  ///   `StoreError.missionNotFound`; `StoreError.sqlite`.
  @discardableResult
  public func apply(_ action: MissionAction, toMission id: String, at time: Date = Date())
    throws -> MissionTransition
  {
    try withConnection { connection in
      try commitPendingLocked(connection)
      return try connection.transaction {
        let state = try storedStateLocked(id, connection)
        guard let target = action.target(from: state) else {
          throw TrackingError.illegalTransition(missionID: id, state: state, action: action)
        }
        let transition = MissionTransition(
          missionID: id, action: action, from: state, to: target, time: time)
        if target != state { try commitTransitionLocked(transition, connection) }
        return transition
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

  /// Updates the mission's state, appends the audit row and the `state` event (inside the
  /// caller's transaction).
  private func commitTransitionLocked(
    _ transition: MissionTransition, _ connection: SQLiteConnection
  ) throws {
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

  /// A tracker's `state` event: applied when the stored state is `from`, skipped when it
  /// duplicates the last recorded transition, refused otherwise. Commits at once.
  func recordStateEventLocked(
    _ event: TrackingEvent, from: MissionState, to: MissionState,
    _ connection: SQLiteConnection
  ) throws {
    try connection.transaction {
      let id = event.missionID
      let stored = try storedStateLocked(id, connection)
      if stored == from, from != to {
        guard let action = MissionAction.allCases.first(where: { $0.target(from: from) == to })
        else {
          throw StoreError.stateConflict(missionID: id, stored: stored, from: from, to: to)
        }
        try commitTransitionLocked(
          MissionTransition(missionID: id, action: action, from: from, to: to, time: event.time),
          connection)
        return
      }
      if stored == to {
        if from == to { return }
        if let last = try lastTransitionLocked(id, connection), last.from == from,
          last.to == to
        {
          return  // already committed by apply(_:toMission:at:)
        }
      }
      throw StoreError.stateConflict(missionID: id, stored: stored, from: from, to: to)
    }
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
    try withConnection { connection in
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
