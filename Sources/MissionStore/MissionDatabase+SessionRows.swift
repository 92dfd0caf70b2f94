import Foundation
import MissionTracking

extension MissionDatabase {
  /// The parameters of one row of a fence-state upsert (`MultiRowStatement`).
  struct FenceStateRow {
    /// The parameter names of a row, in the order of the columns.
    static let names = ["mission", "fence", "inside", "since", "dwell", "updated"]
    let mission, fence, inside, since, dwell, updated: SQLiteStatement.Parameter

    /// Row `row`'s parameters in `statement`.
    init(_ statement: SQLiteStatement, row: Int) throws {
      func named(_ name: String) throws -> SQLiteStatement.Parameter {
        try statement.parameter("\(name)\(row)")
      }
      (mission, fence, inside) = (try named("mission"), try named("fence"), try named("inside"))
      (since, dwell, updated) = (try named("since"), try named("dwell"), try named("updated"))
    }

    /// `INSERT INTO fence_state … VALUES (…) × count ON CONFLICT … DO UPDATE`.
    static func sql(count: Int) -> String {
      """
      INSERT INTO fence_state (mission_id, fence_id, inside, since_us, dwell_reported,
        updated_us) VALUES \(MultiRowStatement<Self>.values(names, count: count))
      ON CONFLICT (mission_id, fence_id) DO UPDATE SET inside = excluded.inside,
        since_us = excluded.since_us, dwell_reported = excluded.dwell_reported,
        updated_us = excluded.updated_us
      """
    }
  }

  /// The parameters of one row of a travelled-distance upsert (`MultiRowStatement`).
  struct TravelledRow {
    /// The parameter names of a row, in the order of the columns.
    static let names = ["mission", "travelled", "updated"]
    let mission, travelled, updated: SQLiteStatement.Parameter

    /// Row `row`'s parameters in `statement`.
    init(_ statement: SQLiteStatement, row: Int) throws {
      (mission, travelled, updated) = (
        try statement.parameter("mission\(row)"), try statement.parameter("travelled\(row)"),
        try statement.parameter("updated\(row)")
      )
    }

    /// `INSERT INTO tracking_sessions … VALUES (…) × count ON CONFLICT … DO UPDATE`.
    static func sql(count: Int) -> String {
      """
      INSERT INTO tracking_sessions (mission_id, travelled_m, updated_us)
      VALUES \(MultiRowStatement<Self>.values(names, count: count))
      ON CONFLICT (mission_id) DO UPDATE SET travelled_m = excluded.travelled_m,
        updated_us = excluded.updated_us
      """
    }
  }

  /// `SELECT id, state FROM missions WHERE id IN (:id0, …)` for `count` ids.
  static func trackedCheckSQL(count: Int) -> String {
    "SELECT id, state FROM missions WHERE id IN ("
      + (0..<count).map { ":id\($0)" }.joined(separator: ", ") + ")"
  }

  /// Holding `lock`, in a commit's transaction: fails unless every mission of `ids` is
  /// stored and tracked (active or arrived), read `fixRunLength` missions per statement
  /// (a commit of a fleet's single positions names hundreds). The first of `ids` that is
  /// not decides the error.
  /// - Throws: `StoreError.missionNotFound`, `TrackingError.changedElsewhere` for a mission
  ///   another process took out of tracking, `StoreError.sqlite`.
  func checkTrackedLocked(_ ids: [String], _ connection: SQLiteConnection) throws {
    var states: [String: String] = [:]
    try inRuns(
      ids, &trackedChecks, connection, sql: Self.trackedCheckSQL(count:),
      row: { statement, row in try statement.parameter("id\(row)") },
      bind: { select, id, parameter in try select.bind(id, to: parameter) },
      finish: { select in
        defer { select.rewind() }
        let id = try select.column("id")
        let state = try select.column("state")
        while try select.step() { states[select.string(id) ?? ""] = select.string(state) ?? "" }
      })
    for id in ids {
      guard let text = states[id] else { throw StoreError.missionNotFound(id) }
      let state = try Self.storedState(text, of: id, sql: Self.trackedCheckSQL(count: 1))
      guard state.isTracking else {
        throw TrackingError.changedElsewhere(missionID: id, state: state)
      }
    }
  }

  /// Holding `lock`, in a commit's transaction: stores `rows` (the fence states a group's
  /// batches left) `fixRunLength` per statement.
  func saveFenceStatesLocked(_ rows: [EventBatch.FenceRow], _ connection: SQLiteConnection)
    throws
  {
    try inRuns(
      rows, &fenceStateRuns, connection, sql: FenceStateRow.sql(count:), row: FenceStateRow.init
    ) { save, row, p in
      try save.bind(row.missionID, to: p.mission)
      try save.bind(row.fenceID, to: p.fence)
      try save.bind(row.state.isInside ? 1 : 0, to: p.inside)
      try save.bind(row.state.insideSince.map(microseconds), to: p.since)
      try save.bind(row.state.dwellReported ? 1 : 0, to: p.dwell)
      try save.bind(row.updated, to: p.updated)
    }
  }

  /// Holding `lock`, in a commit's transaction: stores each mission's travelled distance of
  /// `travelled` (metres and update time, by mission) `fixRunLength` per statement.
  func saveTravelledLocked(
    _ travelled: [(id: String, meters: Double, updated: Int64)], _ connection: SQLiteConnection
  ) throws {
    try inRuns(
      travelled, &travelledRuns, connection, sql: TravelledRow.sql(count:), row: TravelledRow.init
    ) { save, row, p in
      try save.bind(row.id, to: p.mission)
      try save.bind(row.meters, to: p.travelled)
      try save.bind(row.updated, to: p.updated)
    }
  }

  /// Runs the multi-row statement of `sql` for `values`, `fixRunLength` rows at a time (the
  /// statements held in `slots` by row count): `bind` binds each value to its row, then
  /// `finish` runs the statement (by default to its end: a write).
  private func inRuns<Value, Row>(
    _ values: [Value], _ slots: inout [MultiRowStatement<Row>?], _ connection: SQLiteConnection,
    sql: (Int) -> String, row: (SQLiteStatement, Int) throws -> Row,
    bind: (SQLiteStatement, Value, Row) throws -> Void,
    finish: (SQLiteStatement) throws -> Void = { try $0.run() }
  ) throws {
    var start = 0
    while start < values.count {
      let end = min(values.count, start + Self.fixRunLength)
      let run = try runStatement(&slots, count: end - start, connection, sql: sql, row: row)
      for index in start..<end {
        try bind(run.statement, values[index], run.rows[index - start])
      }
      try finish(run.statement)
      start = end
    }
  }
}
