import Foundation
import MissionTracking

/// Reading stored rows back into values, and the one time conversion.
extension PostgresDatabase {
  /// The columns `missions(_:)` reads.
  static let missionColumns = """
    id, title, lat, lon, radius_m, reward, currency, address, mt_us(deadline) AS deadline_us,
    state, worker_id
    """

  /// The columns `fixes(_:)` reads.
  static let trackColumns = """
    mt_us(time) AS time_us, lat, lon, alt_m, eph_m, speed_mps, course_deg, mode, satellites,
    source
    """

  /// Microseconds since 1970-01-01T00:00:00Z, rounded: the unit every stored time has.
  static func microseconds(_ date: Date) -> Int64 {
    Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
  }

  /// The date `value` microseconds after 1970-01-01T00:00:00Z.
  static func date(microseconds value: Int64) -> Date {
    Date(timeIntervalSince1970: Double(value) / 1_000_000)
  }

  /// A stored state name as a `MissionState`.
  static func state(_ text: String?) throws -> MissionState {
    guard let text, let state = MissionState(rawValue: text) else {
      throw PostgresError(kind: .other, message: "unknown mission state \(text ?? "NULL")")
    }
    return state
  }

  /// The missions of rows read with `missionColumns`.
  static func missions(_ rows: PostgresRows) throws -> [Mission] {
    var missions: [Mission] = []
    missions.reserveCapacity(rows.count)
    for row in 0..<rows.count {
      missions.append(
        Mission(
          id: rows.string(row, "id") ?? "", title: rows.string(row, "title") ?? "",
          coordinate: Coordinate(
            uncheckedLatitude: rows.double(row, "lat") ?? 0,
            longitude: rows.double(row, "lon") ?? 0),
          geofenceRadiusMeters: rows.double(row, "radius_m") ?? Mission.defaultGeofenceRadiusMeters,
          reward: rows.string(row, "reward"), currency: rows.string(row, "currency"),
          address: rows.string(row, "address"),
          deadline: rows.int64(row, "deadline_us").map(date(microseconds:)),
          state: try state(rows.string(row, "state")), workerID: rows.string(row, "worker_id")))
    }
    return missions
  }

  /// The fixes of rows read with `trackColumns`.
  static func fixes(_ rows: PostgresRows) -> [Fix] {
    (0..<rows.count).map { row in
      Fix(
        time: date(microseconds: rows.int64(row, "time_us") ?? 0),
        coordinate: Coordinate(
          uncheckedLatitude: rows.double(row, "lat") ?? 0, longitude: rows.double(row, "lon") ?? 0),
        mode: rows.int64(row, "mode").flatMap { FixMode(rawValue: Int($0)) } ?? .threeD,
        source: rows.string(row, "source") ?? "",
        altitudeMeters: rows.double(row, "alt_m"),
        horizontalAccuracyMeters: rows.double(row, "eph_m"),
        speedMetersPerSecond: rows.double(row, "speed_mps"),
        courseDegrees: rows.double(row, "course_deg"),
        satellitesUsed: rows.int64(row, "satellites").map { Int($0) })
    }
  }
}
