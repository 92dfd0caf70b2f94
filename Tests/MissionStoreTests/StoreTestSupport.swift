import Foundation
import MissionTracking

@testable import MissionStore

/// A fresh directory under the system temporary directory, removed when released.
final class TemporaryDirectory {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("missionstore-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: url) }

  /// A path for a database file in this directory.
  func path(_ name: String = "missions.sqlite") -> String {
    url.appendingPathComponent(name).path
  }

  /// Writes `text` to a file in this directory and returns its URL.
  func write(_ text: String, to name: String) throws -> URL {
    let file = url.appendingPathComponent(name)
    try Data(text.utf8).write(to: file)
    return file
  }
}

/// Lock-protected value shared between a test and a background thread.
final class Shared<Value>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value
  init(_ value: Value) { self.value = value }
  func get() -> Value { lock.withLock { value } }
  func update(_ body: (inout Value) -> Void) { lock.withLock { body(&value) } }
}

enum Fixtures {
  static let start = Date(timeIntervalSince1970: 1_780_000_000.25)

  static func mission(_ id: String, state: MissionState = .open, lat: Double = 59.3293)
    -> Mission
  {
    Mission(
      id: id, title: "Photograph the shop front \(id)",
      coordinate: try! Coordinate(latitude: lat, longitude: 18.0686),
      geofenceRadiusMeters: 75, reward: "350", currency: "SEK", address: "Storgatan 12",
      deadline: Date(timeIntervalSince1970: 1_790_000_000), state: state)
  }

  /// The fix `index` of a synthetic track: one per second, moving north.
  static func fix(_ index: Int) -> Fix {
    Fix(
      time: start.addingTimeInterval(Double(index)),
      coordinate: try! Coordinate(latitude: 59.0 + Double(index) * 1e-4, longitude: 18.0),
      mode: .threeD, source: "test", altitudeMeters: 12.5, horizontalAccuracyMeters: 4,
      speedMetersPerSecond: 1.5, courseDegrees: 0, satellitesUsed: 9)
  }

  static func fixEvent(_ index: Int, mission: String) -> TrackingEvent {
    TrackingEvent(
      time: fix(index).time, missionID: mission,
      kind: .fix(fix(index), distanceToMissionMeters: 100, travelledMeters: Double(index)))
  }

  /// Stores `missions` as a build before schema 7 did (no worker column): for a file opened
  /// with the older migrations only.
  static func insertBeforeWorkers(_ missions: [Mission], into database: MissionDatabase) throws {
    try database.withConnection { connection in
      try connection.transaction {
        let insert = try connection.cached(
          """
          INSERT INTO missions (id, title, lat, lon, radius_m, reward, currency, address,
            deadline_us, state, updated_us)
          VALUES (:id, :title, :lat, :lon, :radius, :reward, :currency, :address, :deadline,
            :state, 0)
          """)
        for mission in missions {
          try insert.bind([
            "id": mission.id, "title": mission.title, "lat": mission.coordinate.latitude,
            "lon": mission.coordinate.longitude, "radius": mission.geofenceRadiusMeters,
            "reward": mission.reward, "currency": mission.currency, "address": mission.address,
            "deadline": mission.deadline.map(microseconds), "state": mission.state.rawValue,
          ])
          try insert.run()
          insert.reset()
        }
      }
    }
  }

  /// A database on a file with `missions` stored.
  static func database(
    in directory: TemporaryDirectory, missions: [Mission] = [],
    configuration: StoreConfiguration = StoreConfiguration(synchronous: .normal)
  ) throws -> MissionDatabase {
    let database = try MissionDatabase(path: directory.path(), configuration: configuration)
    if !missions.isEmpty { try database.insert(missions) }
    return database
  }
}
