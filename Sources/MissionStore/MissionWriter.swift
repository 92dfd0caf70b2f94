import Foundation
import MissionTracking

/// The prepared statements that store one mission row, taken from the connection's cache
/// once per batch rather than once per row (a lookup hashes the whole SQL text).
///
/// Used inside the caller's transaction only; it holds no state of its own.
struct MissionWriter {
  private let exists: SQLiteStatement
  private let insert: SQLiteStatement
  private let upsert: SQLiteStatement
  private let log: SQLiteStatement
  private let insertRows: SQLiteStatement
  private let logRows: SQLiteStatement

  /// SQLite's extended result code for a PRIMARY KEY violation (`SQLITE_CONSTRAINT_PRIMARYKEY`).
  static let primaryKeyViolation = 1555
  /// SQLite's extended result code for a UNIQUE index violation (`SQLITE_CONSTRAINT_UNIQUE`).
  static let uniqueViolation = 2067

  private static let columns = """
    INSERT INTO missions (id, title, lat, lon, radius_m, reward, currency, address,
      deadline_us, state, properties, updated_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    """

  init(_ connection: SQLiteConnection) throws {
    exists = try connection.cached("SELECT state FROM missions WHERE id = ?")
    insert = try connection.cached(Self.columns)
    upsert = try connection.cached(
      Self.columns + """

        ON CONFLICT (id) DO UPDATE SET title = excluded.title, lat = excluded.lat,
          lon = excluded.lon, radius_m = excluded.radius_m, reward = excluded.reward,
          currency = excluded.currency, address = excluded.address,
          deadline_us = excluded.deadline_us, state = excluded.state,
          properties = excluded.properties, updated_us = excluded.updated_us
        """)
    log = try connection.cached("INSERT INTO mission_changes (id) VALUES (?)")
    insertRows = try connection.cached(Self.multiRowInsert(Self.rowsPerStatement))
    logRows = try connection.cached(Self.multiRowLog(Self.rowsPerStatement))
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
      let rows = full ? insertRows : try connection.cached(Self.multiRowInsert(end - start))
      let logs = full ? logRows : try connection.cached(Self.multiRowLog(end - start))
      var parameter: Int32 = 1
      for index in start..<end {
        let (mission, properties) = missions[index]
        try rows.bind(mission.id, at: parameter)
        try rows.bind(mission.title, at: parameter + 1)
        try rows.bind(mission.coordinate.latitude, at: parameter + 2)
        try rows.bind(mission.coordinate.longitude, at: parameter + 3)
        try rows.bind(mission.geofenceRadiusMeters, at: parameter + 4)
        try rows.bind(mission.reward, at: parameter + 5)
        try rows.bind(mission.currency, at: parameter + 6)
        try rows.bind(mission.address, at: parameter + 7)
        try rows.bind(mission.deadline.map(microseconds), at: parameter + 8)
        try rows.bind(mission.state.rawValue, at: parameter + 9)
        try rows.bind(properties, at: parameter + 10)
        try rows.bind(updated, at: parameter + 11)
        try logs.bind(mission.id, at: Int32(index - start + 1))
        parameter += 12
      }
      do {
        try rows.run()
      } catch StoreError.sqlite(let code, let message, let sql) where code & 0xFF == 19 {
        // SQLITE_CONSTRAINT: find the row, one statement at a time.
        for index in start..<end {
          do {
            try write(
              missions[index].mission, properties: missions[index].properties, replace: false,
              updated: updated)
          } catch {
            try failed(index, error)
          }
        }
        throw StoreError.sqlite(code: code, message: message, sql: sql)
      }
      try logs.run()
      start = end
    }
  }

  /// `INSERT INTO missions … VALUES (…), (…)` for `count` rows.
  private static func multiRowInsert(_ count: Int) -> String {
    let row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
    return columns.replacingOccurrences(of: row, with: "")
      + Array(repeating: row, count: count).joined(separator: ", ")
  }

  /// `INSERT INTO mission_changes (id) VALUES (?), (?)` for `count` rows.
  private static func multiRowLog(_ count: Int) -> String {
    "INSERT INTO mission_changes (id) VALUES "
      + Array(repeating: "(?)", count: count).joined(separator: ", ")
  }

  /// Inserts `mission` (its id already in NFC), or with `replace` updates the stored one.
  ///
  /// Without `replace` the row is inserted at once and the primary key refuses a duplicate
  /// (no lookup first); with it, a lookup tells an update from an insert.
  /// - Returns: Whether a stored mission was replaced.
  /// - Throws: `StoreError.duplicateMission` for a stored id without `replace`,
  ///   `StoreError.sqlite` for a value the schema refuses.
  @discardableResult
  func write(_ mission: Mission, properties: String, replace: Bool, updated: Int64) throws
    -> Bool
  {
    var existed = false
    if replace {
      try exists.bind(mission.id, at: 1)
      existed = try exists.step()
      let stored = existed ? exists.string(at: 0).flatMap(MissionState.init(rawValue:)) : nil
      exists.reset()
      // The tracking engine owns a tracked mission until it is submitted or cancelled.
      if let stored, stored.isTracking { throw StoreError.missionTracked(mission.id) }
    }
    let statement = replace ? upsert : insert
    try statement.bind(mission.id, at: 1)
    try statement.bind(mission.title, at: 2)
    try statement.bind(mission.coordinate.latitude, at: 3)
    try statement.bind(mission.coordinate.longitude, at: 4)
    try statement.bind(mission.geofenceRadiusMeters, at: 5)
    try statement.bind(mission.reward, at: 6)
    try statement.bind(mission.currency, at: 7)
    try statement.bind(mission.address, at: 8)
    try statement.bind(mission.deadline.map(microseconds), at: 9)
    try statement.bind(mission.state.rawValue, at: 10)
    try statement.bind(properties, at: 11)
    try statement.bind(updated, at: 12)
    do {
      try statement.run()
    } catch StoreError.sqlite(let code, _, _) where code == Self.primaryKeyViolation {
      throw StoreError.duplicateMission(mission.id)
    }
    if !existed {
      // The change feed (an update's entry comes from the `missions_change_update` trigger).
      try log.bind(mission.id, at: 1)
      try log.run()
    }
    return existed
  }
}
