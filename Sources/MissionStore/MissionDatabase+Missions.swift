import Foundation
import MissionFiles
import MissionTracking
import TextRules

extension MissionDatabase {
  static let missionColumns =
    "id, title, lat, lon, radius_m, reward, currency, address, deadline_us, state, worker_id"

  /// The columns of `missionColumns` in a statement that selects them, resolved once per
  /// query, so that reading a row looks no name up.
  struct MissionColumns {
    let id, title, lat, lon, radius, reward, currency, address, deadline, state,
      worker: SQLiteStatement.Column

    /// The columns of `statement`.
    /// - Throws: `StoreError` when it lacks one.
    init(_ statement: SQLiteStatement) throws {
      id = try statement.column("id")
      title = try statement.column("title")
      lat = try statement.column("lat")
      lon = try statement.column("lon")
      radius = try statement.column("radius_m")
      reward = try statement.column("reward")
      currency = try statement.column("currency")
      address = try statement.column("address")
      deadline = try statement.column("deadline_us")
      state = try statement.column("state")
      worker = try statement.column("worker_id")
    }
  }

  /// Reads the current row's mission, its `missionColumns` at `columns`.
  func mission(from row: SQLiteStatement, _ columns: MissionColumns) -> Mission {
    Mission(
      id: row.string(columns.id) ?? "", title: row.string(columns.title) ?? "",
      coordinate: Coordinate(
        uncheckedLatitude: row.double(columns.lat), longitude: row.double(columns.lon)),
      geofenceRadiusMeters: row.double(columns.radius), reward: row.string(columns.reward),
      currency: row.string(columns.currency), address: row.string(columns.address),
      deadline: row.optionalInt64(columns.deadline).map { date(microseconds: $0) },
      state: MissionState(rawValue: row.string(columns.state) ?? "") ?? .open,
      workerID: row.string(columns.worker))
  }

  /// Adds missions in one transaction: all or none.
  ///
  /// A mission's state is stored as given (no transition is recorded: this is data entry,
  /// like an import). Many missions at once are a bulk load (`withBulkLoadLocked`).
  /// - Throws: `StoreError.duplicateMission` when an id is already stored (nothing added),
  ///   `StoreError.sqlite` (for example a radius ≤ 0).
  /// - Complexity: O(n log N).
  package func insert(_ missions: some Sequence<Mission>, at time: Date = Date()) throws {
    // Not added to `knownMissions`: the transaction may still roll back, and the recorder
    // looks ids up on first use anyway.
    let missions = Array(missions)
    try withConnection { connection in
      try connection.transaction {
        try withBulkLoadLocked(adding: missions.count, connection) {
          try MissionWriter(connection).insertNew(
            missions.map { (normalized($0), "{}") }, updated: microseconds(time), connection
          ) { _, error in throw error }
        }
      }
    }
  }

  /// `mission` with its id and worker in NFC (`MissionID`, `Identifier`), as the store
  /// keeps them.
  func normalized(_ mission: Mission) -> Mission {
    var normalized = mission
    normalized.id = MissionID.normalized(mission.id)
    normalized.workerID = mission.workerID.map(Identifier.normalized)
    return normalized
  }

  /// Every mission, ordered by id, optionally only those in `state`.
  /// - Complexity: O(n) rows read; with a state filter, O(matches) through an index.
  package func missions(inState state: MissionState? = nil) throws -> [Mission] {
    try withConnection { connection in
      let select =
        if let state {
          try {
            let s = try connection.cached(
              "SELECT \(Self.missionColumns) FROM missions WHERE state = :state ORDER BY id")
            try s.bind(["state": state.rawValue])
            return s
          }()
        } else {
          try connection.cached("SELECT \(Self.missionColumns) FROM missions ORDER BY id")
        }
      defer { select.reset() }
      let columns = try MissionColumns(select)
      var result: [Mission] = []
      while try select.step() { result.append(mission(from: select, columns)) }
      return result
    }
  }

  /// The mission with `id` (in any Unicode normalisation form, see `MissionID`), or nil.
  package func mission(id: String) throws -> Mission? {
    try withConnection { connection in try missionLocked(id, connection) }
  }

  func missionLocked(_ id: String, _ connection: SQLiteConnection) throws -> Mission? {
    if missionByID == nil {
      let select = try connection.prepare(
        "SELECT \(Self.missionColumns) FROM missions WHERE id = :id")
      missionByID = (select, try select.parameter("id"), try MissionColumns(select))
    }
    guard let (select, parameter, columns) = missionByID else { return nil }
    defer { select.reset() }
    try select.bind(MissionID.normalized(id), to: parameter)
    return try select.step() ? mission(from: select, columns) : nil
  }

  /// The fields an import file carried beyond the known ones, as a JSON object (`{}` when
  /// none), or nil when there is no such mission.
  package func extraProperties(ofMission id: String) throws -> String? {
    try withConnection { connection in
      let select = try connection.cached("SELECT properties FROM missions WHERE id = :id")
      defer { select.reset() }
      try select.bind(["id": MissionID.normalized(id)])
      return try select.step() ? try select.string("properties") : nil
    }
  }

  /// Number of stored missions.
  package func missionCount() throws -> Int {
    try withConnection { Int(try $0.integer("SELECT count(*) FROM missions") ?? 0) }
  }

  /// Every mission's id, coordinate and state, for building the proximity index: one
  /// sequential scan of the missions table, in id order.
  /// - Complexity: O(n).
  package func missionLocations() throws -> [MissionLocation] {
    try withConnection { connection in
      let count = Int(try connection.integer("SELECT count(*) FROM missions") ?? 0)
      let select = try connection.cached("SELECT id, lat, lon, state FROM missions")
      defer { select.reset() }
      let (id, lat, lon, stateColumn) = (
        try select.column("id"), try select.column("lat"), try select.column("lon"),
        try select.column("state")
      )
      var result: [MissionLocation] = []
      result.reserveCapacity(count)
      while try select.step() {
        let state = select.withUTF8(stateColumn) { Self.state(utf8: $0) }
        result.append(
          MissionLocation(
            id: select.string(id) ?? "",
            coordinate: Coordinate(
              uncheckedLatitude: select.double(lat), longitude: select.double(lon)),
            state: state))
      }
      return result
    }
  }

  /// Maps a state name to the state without building a String (hot in `missionLocations`).
  static func state(utf8 bytes: UnsafeBufferPointer<UInt8>) -> MissionState {
    guard bytes.count >= 4 else { return .open }
    switch (bytes[0], bytes[1], bytes.count) {
    case (UInt8(ascii: "o"), UInt8(ascii: "p"), 4): return .open
    case (UInt8(ascii: "a"), UInt8(ascii: "c"), 8): return .accepted
    case (UInt8(ascii: "a"), UInt8(ascii: "c"), 6): return .active
    case (UInt8(ascii: "a"), UInt8(ascii: "r"), 7): return .arrived
    case (UInt8(ascii: "s"), UInt8(ascii: "u"), 9): return .submitted
    case (UInt8(ascii: "c"), UInt8(ascii: "o"), 9): return .completed
    case (UInt8(ascii: "c"), UInt8(ascii: "a"), 9): return .cancelled
    case (UInt8(ascii: "e"), UInt8(ascii: "x"), 7): return .expired
    default: return MissionState(rawValue: String(decoding: bytes, as: UTF8.self)) ?? .open
    }
  }
}
