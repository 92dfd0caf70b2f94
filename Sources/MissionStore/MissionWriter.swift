import Foundation
import MissionTracking
import TextRules

/// The prepared statements that store one mission row, taken from the connection's cache
/// once per batch rather than once per row (a lookup hashes the whole SQL text).
///
/// Used inside the caller's transaction only; it holds no state of its own.
struct MissionWriter {
  /// The parameters of one mission row (`:id`, `:title`, … with the row's number after
  /// each in a multi-row insert).
  struct Row {
    /// The parameter names, in the order of `columns`.
    static let names = [
      "id", "title", "lat", "lon", "radius", "reward", "currency", "address", "deadline",
      "state", "properties", "updated", "worker",
    ]
    let id, title, lat, lon, radius, reward, currency, address, deadline, state, properties,
      updated, worker: SQLiteStatement.Parameter

    /// The parameters named with `suffix` in `statement`.
    /// - Throws: `StoreError` when one is missing.
    init(_ statement: SQLiteStatement, suffix: String = "") throws {
      func named(_ name: String) throws -> SQLiteStatement.Parameter {
        try statement.parameter(name + suffix)
      }
      (id, title, lat, lon) = (
        try named("id"), try named("title"), try named("lat"), try named("lon")
      )
      (radius, reward, currency, address) = (
        try named("radius"), try named("reward"), try named("currency"), try named("address")
      )
      (deadline, state, properties, updated) = (
        try named("deadline"), try named("state"), try named("properties"), try named("updated")
      )
      worker = try named("worker")
    }

    /// Binds `mission`, its extra `properties` and the update time to these parameters.
    func bind(
      _ mission: Mission, properties: String, updated: Int64, to statement: SQLiteStatement
    ) throws {
      try statement.bind(mission.id, to: id)
      try statement.bind(mission.title, to: title)
      try statement.bind(mission.coordinate.latitude, to: lat)
      try statement.bind(mission.coordinate.longitude, to: lon)
      try statement.bind(mission.geofenceRadiusMeters, to: radius)
      try statement.bind(mission.reward, to: reward)
      try statement.bind(mission.currency, to: currency)
      try statement.bind(mission.address, to: address)
      try statement.bind(mission.deadline.map(microseconds), to: deadline)
      try statement.bind(mission.state.rawValue, to: state)
      try statement.bind(properties, to: self.properties)
      try statement.bind(updated, to: self.updated)
      try statement.bind(mission.workerID, to: worker)
    }
  }

  private let exists: SQLiteStatement
  private let existsID: SQLiteStatement.Parameter
  private let existsState: SQLiteStatement.Column
  private let existsWorker: SQLiteStatement.Column
  private let insert: SQLiteStatement
  private let insertRow: Row
  private let upsert: SQLiteStatement
  private let upsertRow: Row
  private let log: SQLiteStatement
  private let logID: SQLiteStatement.Parameter
  private let insertRows: MultiRowStatement<Row>
  private let logRows: MultiRowStatement<SQLiteStatement.Parameter>
  private let connection: SQLiteConnection

  private static let columns = """
    INSERT INTO missions (id, title, lat, lon, radius_m, reward, currency, address,
      deadline_us, state, properties, updated_us, worker_id) VALUES
    """

  init(_ connection: SQLiteConnection) throws {
    self.connection = connection
    exists = try connection.cached("SELECT state, worker_id FROM missions WHERE id = :id")
    (existsID, existsState, existsWorker) = (
      try exists.parameter("id"), try exists.column("state"), try exists.column("worker_id")
    )
    let one = Self.columns + " (" + Row.names.map { ":" + $0 }.joined(separator: ", ") + ")"
    insert = try connection.cached(one)
    insertRow = try Row(insert)
    upsert = try connection.cached(
      one + """

        ON CONFLICT (id) DO UPDATE SET title = excluded.title, lat = excluded.lat,
          lon = excluded.lon, radius_m = excluded.radius_m, reward = excluded.reward,
          currency = excluded.currency, address = excluded.address,
          deadline_us = excluded.deadline_us, state = excluded.state,
          properties = excluded.properties, updated_us = excluded.updated_us,
          worker_id = excluded.worker_id
        """)
    upsertRow = try Row(upsert)
    log = try connection.cached("INSERT INTO mission_changes (id) VALUES (:id)")
    logID = try log.parameter("id")
    insertRows = try Self.multiRowInsert(Self.rowsPerStatement, connection)
    logRows = try Self.multiRowLog(Self.rowsPerStatement, connection)
  }

  /// Rows per statement of `insertNew`: one statement per row was half of a large import's
  /// time in SQLite's per-statement work (bind, step, reset), not in storing the rows.
  static let rowsPerStatement = 64

  /// Inserts new missions (ids already in NFC) with one multi-row statement per
  /// `rowsPerStatement`, and their change-feed entries likewise.
  ///
  /// When a statement is refused, nothing of it stays (SQLite backs the statement out) and
  /// its rows are written again one by one, so the error names the first bad row through
  /// `failed` (called with the row's index and the error of `write`).
  /// - Throws: What `failed` throws, or `StoreError.sqlite`.
  func insertNew(
    _ missions: [(mission: Mission, properties: String)], updated: Int64,
    _ connection: SQLiteConnection, failed: (Int, any Error) throws -> Never
  ) throws {
    var start = 0
    while start < missions.count {
      let end = min(missions.count, start + Self.rowsPerStatement)
      let full = end - start == Self.rowsPerStatement
      let rows = full ? insertRows : try Self.multiRowInsert(end - start, connection)
      let logs = full ? logRows : try Self.multiRowLog(end - start, connection)
      for index in start..<end {
        let (mission, properties) = missions[index]
        try rows.rows[index - start].bind(
          Self.withWorker(mission, stored: nil), properties: properties, updated: updated,
          to: rows.statement)
        try logs.statement.bind(mission.id, to: logs.rows[index - start])
      }
      do {
        try rows.statement.run()
      } catch let error as StoreError {
        guard case .constraint = error else { throw error }
        // Find the row, one statement at a time.
        for index in start..<end {
          do {
            try write(
              missions[index].mission, properties: missions[index].properties, replace: false,
              updated: updated)
          } catch {
            try failed(index, error)
          }
        }
        throw error
      }
      try logs.statement.run()
      start = end
    }
  }

  /// `INSERT INTO missions … VALUES (…), (…)` for `count` rows (from the connection's
  /// cache), each row's parameters resolved.
  private static func multiRowInsert(_ count: Int, _ connection: SQLiteConnection) throws
    -> MultiRowStatement<Row>
  {
    let sql = columns + " " + MultiRowStatement<Row>.values(Row.names, count: count)
    return try MultiRowStatement(connection.cached(sql), count: count) {
      try Row($0, suffix: "\($1)")
    }
  }

  /// `INSERT INTO mission_changes (id) VALUES (:id0), (:id1)` for `count` rows.
  private static func multiRowLog(_ count: Int, _ connection: SQLiteConnection) throws
    -> MultiRowStatement<SQLiteStatement.Parameter>
  {
    let sql =
      "INSERT INTO mission_changes (id) VALUES "
      + MultiRowStatement<SQLiteStatement.Parameter>.values(["id"], count: count)
    return try MultiRowStatement(connection.cached(sql), count: count) {
      try $0.parameter("id\($1)")
    }
  }

  /// `mission` with the worker it is stored with: its own when it names one (in NFC);
  /// none while open; else the stored mission's (a replacement that names no worker keeps
  /// the one who accepted it), else `local` (a mission written in a later state belongs to
  /// the rig's own worker, so the one-tracked index sees every tracked mission).
  static func withWorker(_ mission: Mission, stored: String?) -> Mission {
    var mission = mission
    if let worker = mission.workerID {
      mission.workerID = Identifier.normalized(worker)
    } else if mission.state != .open {
      mission.workerID = stored ?? Worker.localID
    }
    return mission
  }

  /// Inserts `mission` (its id already in NFC), or with `replace` updates the stored one.
  ///
  /// Without `replace` the row is inserted at once and the primary key refuses a duplicate
  /// (no lookup first); with it, and for a tracked mission, a lookup tells an update from an
  /// insert and a stored id from a second tracked mission.
  /// - Returns: Whether a stored mission was replaced.
  /// - Throws: `StoreError.duplicateMission` for a stored id without `replace`,
  ///   `StoreError.missionTracked` when replacing a tracked mission,
  ///   `StoreError.secondTrackedMission` (see `refuseSecondTrackedLocked`),
  ///   `StoreError.constraint` for a value the schema refuses.
  @discardableResult
  func write(_ mission: Mission, properties: String, replace: Bool, updated: Int64) throws
    -> Bool
  {
    var existed = false
    var storedWorker: String?
    if replace || mission.state.isTracking {
      try exists.bind(mission.id, to: existsID)
      existed = try exists.step()
      let stored = existed ? exists.string(existsState).flatMap(MissionState.init(rawValue:)) : nil
      storedWorker = existed ? exists.string(existsWorker) : nil
      exists.reset()
      guard replace || !existed else { throw StoreError.duplicateMission(mission.id) }
      // The tracking engine owns a tracked mission until it is submitted or cancelled.
      if let stored, stored.isTracking { throw StoreError.missionTracked(mission.id) }
    }
    let mission = Self.withWorker(mission, stored: storedWorker)
    try MissionDatabase.refuseSecondTrackedLocked(
      mission.id, state: mission.state, worker: mission.workerID ?? Worker.localID, connection)
    let statement = replace ? upsert : insert
    try (replace ? upsertRow : insertRow).bind(
      mission, properties: properties, updated: updated, to: statement)
    do {
      try statement.run()
    } catch StoreError.constraint(.primaryKey, _, _) {
      throw StoreError.duplicateMission(mission.id)
    }
    if !existed {
      // The change feed (an update's entry comes from the `missions_change_update` trigger).
      try log.bind(mission.id, to: logID)
      try log.run()
    }
    return existed
  }
}
