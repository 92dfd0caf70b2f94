import Foundation
import MissionTracking

extension MissionDatabase {
  static let missionColumns =
    "id, title, lat, lon, radius_m, reward, currency, address, deadline_us, state"

  /// Reads a mission from `missionColumns` at column 0.
  func mission(from row: SQLiteStatement) -> Mission {
    Mission(
      id: row.string(at: 0) ?? "", title: row.string(at: 1) ?? "",
      coordinate: Coordinate(uncheckedLatitude: row.double(at: 2), longitude: row.double(at: 3)),
      geofenceRadiusMeters: row.double(at: 4), reward: row.string(at: 5),
      currency: row.string(at: 6), address: row.string(at: 7),
      deadline: row.optionalInt64(at: 8).map { date(microseconds: $0) },
      state: MissionState(rawValue: row.string(at: 9) ?? "") ?? .open)
  }

  /// Adds missions in one transaction: all or none.
  ///
  /// A mission's state is stored as given (no transition is recorded: this is data entry,
  /// like an import).
  /// - Throws: `StoreError.duplicateMission` when an id is already stored (nothing added),
  ///   `StoreError.sqlite` (for example a radius ≤ 0).
  /// - Complexity: O(n log N).
  public func insert(_ missions: some Sequence<Mission>, at time: Date = Date()) throws {
    try withConnection { connection in
      try connection.transaction {
        for mission in missions {
          try insertMissionLocked(
            mission, properties: "{}", replace: false, updated: microseconds(time), connection)
        }
      }
    }
  }

  /// Inserts (or, with `replace`, updates) one mission inside the caller's transaction; its
  /// id is stored in NFC (`MissionID`).
  /// - Returns: Whether a stored mission was replaced.
  @discardableResult
  func insertMissionLocked(
    _ given: Mission, properties: String, replace: Bool, updated: Int64,
    _ connection: SQLiteConnection
  ) throws -> Bool {
    var mission = given
    mission.id = MissionID.normalized(given.id)
    let exists = try connection.cached("SELECT 1 FROM missions WHERE id = ?")
    try exists.bind(mission.id, at: 1)
    let existed = try exists.step()
    exists.reset()
    if existed && !replace { throw StoreError.duplicateMission(mission.id) }
    let upsert = try connection.cached(
      """
      INSERT INTO missions (id, title, lat, lon, radius_m, reward, currency, address,
        deadline_us, state, properties, updated_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (id) DO UPDATE SET title = excluded.title, lat = excluded.lat,
        lon = excluded.lon, radius_m = excluded.radius_m, reward = excluded.reward,
        currency = excluded.currency, address = excluded.address,
        deadline_us = excluded.deadline_us, state = excluded.state,
        properties = excluded.properties, updated_us = excluded.updated_us
      """)
    try upsert.bind(mission.id, at: 1)
    try upsert.bind(mission.title, at: 2)
    try upsert.bind(mission.coordinate.latitude, at: 3)
    try upsert.bind(mission.coordinate.longitude, at: 4)
    try upsert.bind(mission.geofenceRadiusMeters, at: 5)
    try upsert.bind(mission.reward, at: 6)
    try upsert.bind(mission.currency, at: 7)
    try upsert.bind(mission.address, at: 8)
    try upsert.bind(mission.deadline.map(microseconds), at: 9)
    try upsert.bind(mission.state.rawValue, at: 10)
    try upsert.bind(properties, at: 11)
    try upsert.bind(updated, at: 12)
    try upsert.run()
    if !existed {
      // The change feed (an update's entry comes from the `missions_change_update` trigger).
      let log = try connection.cached("INSERT INTO mission_changes (id) VALUES (?)")
      try log.bind(mission.id, at: 1)
      try log.run()
    }
    // Not added to `knownMissions`: the transaction may still roll back, and the recorder
    // looks ids up on first use anyway.
    return existed
  }

  /// Every mission, ordered by id, optionally only those in `state`.
  /// - Complexity: O(n) rows read; with a state filter, O(matches) through an index.
  public func missions(inState state: MissionState? = nil) throws -> [Mission] {
    try withConnection { connection in
      let select =
        if let state {
          try {
            let s = try connection.cached(
              "SELECT \(Self.missionColumns) FROM missions WHERE state = ? ORDER BY id")
            try s.bind(state.rawValue, at: 1)
            return s
          }()
        } else {
          try connection.cached("SELECT \(Self.missionColumns) FROM missions ORDER BY id")
        }
      defer { select.reset() }
      var result: [Mission] = []
      while try select.step() { result.append(mission(from: select)) }
      return result
    }
  }

  /// The mission with `id` (in any Unicode normalisation form, see `MissionID`), or nil.
  public func mission(id: String) throws -> Mission? {
    try withConnection { connection in try missionLocked(id, connection) }
  }

  func missionLocked(_ id: String, _ connection: SQLiteConnection) throws -> Mission? {
    let select = try connection.cached(
      "SELECT \(Self.missionColumns) FROM missions WHERE id = ?")
    defer { select.reset() }
    try select.bind(MissionID.normalized(id), at: 1)
    return try select.step() ? mission(from: select) : nil
  }

  /// The fields an import file carried beyond the known ones, as a JSON object (`{}` when
  /// none), or nil when there is no such mission.
  public func extraProperties(ofMission id: String) throws -> String? {
    try withConnection { connection in
      let select = try connection.cached("SELECT properties FROM missions WHERE id = ?")
      defer { select.reset() }
      try select.bind(MissionID.normalized(id), at: 1)
      return try select.step() ? select.string(at: 0) : nil
    }
  }

  /// Number of stored missions.
  public func missionCount() throws -> Int {
    try withConnection { Int(try $0.integer("SELECT count(*) FROM missions") ?? 0) }
  }

  /// Every mission's id, coordinate and state, for building the proximity index: one
  /// sequential scan of the missions table, in id order.
  /// - Complexity: O(n).
  public func missionLocations() throws -> [MissionLocation] {
    try withConnection { connection in
      let count = Int(try connection.integer("SELECT count(*) FROM missions") ?? 0)
      let select = try connection.cached("SELECT id, lat, lon, state FROM missions")
      defer { select.reset() }
      var result: [MissionLocation] = []
      result.reserveCapacity(count)
      while try select.step() {
        let state = select.withUTF8(at: 3) { Self.state(utf8: $0) }
        result.append(
          MissionLocation(
            id: select.string(at: 0) ?? "",
            coordinate: Coordinate(
              uncheckedLatitude: select.double(at: 1), longitude: select.double(at: 2)),
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
