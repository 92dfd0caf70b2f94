import Foundation
import MissionFiles
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
  /// like an import). Many missions at once are a bulk load (`withBulkLoadLocked`).
  /// - Throws: `StoreError.duplicateMission` when an id is already stored (nothing added),
  ///   `StoreError.sqlite` (for example a radius ≤ 0).
  /// - Complexity: O(n log N).
  public func insert(_ missions: some Sequence<Mission>, at time: Date = Date()) throws {
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

  /// `mission` with its id in NFC (`MissionID`), as the store keeps it.
  func normalized(_ mission: Mission) -> Mission {
    var normalized = mission
    normalized.id = MissionID.normalized(mission.id)
    return normalized
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
