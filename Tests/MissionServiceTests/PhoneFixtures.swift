import Foundation
import MissionStore
import MissionTracking
import ServiceTestSupport
import Testing

/// Phones for the ingest tests: devices registered to workers, positions in each client's own
/// wire format, and the database read back from a connection of its own (so only what is
/// committed is seen).
enum PhoneFixtures {
  /// Mission sig-101 of the demo missions (radius 40 m).
  static let sig101 = (latitude: 59.61708, longitude: 17.72185)

  /// Metres per degree of latitude (the sphere of DESIGN §2).
  static let metersPerDegree = 6_371_008.8 * Double.pi / 180

  /// A point `north` metres north of sig-101 (negative: south).
  static func nearSig101(north: Double) -> (latitude: Double, longitude: Double) {
    (sig101.latitude + north / metersPerDegree, sig101.longitude)
  }

  /// RFC 3339 with `Z`, whole seconds.
  static func rfc3339(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
  }

  /// The next whole second after now.
  static func nextSecond() -> Date {
    Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 1).rounded(.down))
  }

  /// An Overland batch (its README's example feature, our values).
  static func overland(
    _ points: [(time: Date, latitude: Double, longitude: Double)], deviceID: String
  ) -> String {
    let features = points.map { point in
      #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
        + "\(point.longitude),\(point.latitude)"
        + #"]},"properties":{"timestamp":""# + rfc3339(point.time)
        + #"","altitude":0,"speed":4,"horizontal_accuracy":5,"vertical_accuracy":-1,"#
        + #""motion":["walking"],"pauses":false,"activity":"other_navigation","#
        + #""desired_accuracy":100,"deferred":1000,"significant_change":"disabled","#
        + #""locations_in_payload":1,"battery_state":"unplugged","battery_level":0.8,"#
        + #""device_id":""# + deviceID + #"","wifi":""}}"#
    }
    return #"{"locations":["# + features.joined(separator: ",") + "]}"
  }

  /// Registers worker `worker` with `devices` in `database`, accepts sig-101 for it and
  /// starts it, through the API.
  static func trackSig101(
    _ server: InProcessService, worker: String, devices: [WorkerDevice]
  ) async throws {
    try server.database.putWorker(Worker(id: worker, devices: devices))
    let accepted = try await server.send(
      "POST", "/v1/missions/sig-101/accept", contentType: "application/json",
      #"{"worker_id":""# + worker + #""}"#)
    #expect(accepted.status == 200, "accept: \(accepted.text)")
    let started = try await server.request("POST", "/v1/missions/sig-101/start")
    #expect(started.status == 200, "start: \(started.text)")
  }

  /// The track of `mission` as committed in the database at `path`.
  static func storedTrack(_ path: String, mission: String = "sig-101") throws -> [Fix] {
    let reader = try MissionDatabase(path: path, configuration: StoreConfiguration(readOnly: true))
    return try reader.track(ofMission: mission)
  }

  /// The events of `mission` as committed in the database at `path`.
  static func storedEvents(_ path: String, mission: String = "sig-101") throws -> [TrackingEvent] {
    let reader = try MissionDatabase(path: path, configuration: StoreConfiguration(readOnly: true))
    return try reader.events(ofMission: mission).map(\.event)
  }

  /// The value of the `/metrics` sample `name{labels}`, or nil.
  static func metric(_ text: String, _ sample: String) -> Int? {
    for line in text.split(separator: "\n") where line.hasPrefix(sample + " ") {
      return Int(line.dropFirst(sample.count + 1))
    }
    return nil
  }

  /// `missiontrack_ingest_positions_total` of `protocolName` and `outcome`.
  static func positions(_ metrics: String, _ protocolName: String, _ outcome: String) -> Int? {
    metric(
      metrics,
      "missiontrack_ingest_positions_total{protocol=\"\(protocolName)\",outcome=\"\(outcome)\"}")
  }

  /// `missiontrack_ingest_refused_total` of `protocolName` and `reason`.
  static func refused(_ metrics: String, _ protocolName: String, _ reason: String) -> Int? {
    metric(
      metrics,
      "missiontrack_ingest_refused_total{protocol=\"\(protocolName)\",reason=\"\(reason)\"}")
  }
}
