import Foundation
import MissionTracking
import TextRules

/// A generated scenario: the raw fixes of `Traces/scenarios/NAME.csv` and the ground truth of
/// `NAME.expected.json` (written by `Tools/gen-scenarios`).
struct ScenarioTrace {
  struct ExpectedEvent: Decodable, Equatable {
    var type: String
    var time: String
    var fenceId: String?
    var initial: Bool?
    var row: Int?
    var distanceM: Double?
    var travelledM: Double?
    var closestM: Double?
    var dwellS: Double?
  }

  struct MissionSpec: Decodable {
    var id: String
    var lat: Double
    var lon: Double
    var radiusM: Double
  }

  struct Config: Decodable {
    var maxSpeedMps: Double
    var filterM: Double
    var dwellS: Double
    var gapS: Double
  }

  struct Expected: Decodable {
    var missions: [MissionSpec]
    var config: Config
    var deliveredRows: [Int]
    var travelledM: Double
    var events: [ExpectedEvent]
    var rejected: [String: Int]
  }

  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let directory = packageRoot.appendingPathComponent("Traces/scenarios")

  static let names = [
    "walk-toward", "drive-toward", "boundary-jitter", "fast-pass", "stationary-inside",
    "outlier-jump", "out-of-order", "gap", "two-fences",
  ]

  let name: String
  let fixes: [Fix]
  let expected: Expected

  init(_ name: String) throws {
    self.name = name
    let csv = try String(
      contentsOf: Self.directory.appendingPathComponent(name + ".csv"), encoding: .utf8)
    fixes = try Self.readCSV(csv)
    let json = try Data(contentsOf: Self.directory.appendingPathComponent(name + ".expected.json"))
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    expected = try decoder.decode(Expected.self, from: json)
  }

  /// The missions of the scenario; the first is the active one.
  var missions: [Mission] {
    expected.missions.map {
      Mission(
        id: $0.id, coordinate: Coordinate(uncheckedLatitude: $0.lat, longitude: $0.lon),
        geofenceRadiusMeters: $0.radiusM, state: .active)
    }
  }

  var configuration: TrackingPipeline.Configuration {
    get throws {
      try TrackingPipeline.Configuration(
        cleaner: .init(maximumSpeedMetersPerSecond: expected.config.maxSpeedMps),
        distanceFilterMeters: expected.config.filterM,
        geofence: .init(dwellSeconds: expected.config.dwellS), gapSeconds: expected.config.gapS)
    }
  }

  struct CSVError: Error, CustomStringConvertible {
    var line: Int
    var reason: String
    var description: String { "line \(line): \(reason)" }
  }

  /// The tiny reader of the test traces: `time,lat,lon,eph_m,mode`, header first, no quoting.
  static func readCSV(_ text: String) throws -> [Fix] {
    var fixes: [Fix] = []
    for (index, line) in text.split(separator: "\n").enumerated().dropFirst() {
      let fields = line.split(separator: ",", omittingEmptySubsequences: false)
      guard fields.count == 5 else {
        throw CSVError(line: index + 1, reason: "expected 5 fields, got \(fields.count)")
      }
      guard let time = UTCTime.parse(fields[0])?.date, let lat = Double(fields[1]),
        let lon = Double(fields[2]), let modeNumber = Int(fields[4]),
        let mode = FixMode(rawValue: modeNumber)
      else { throw CSVError(line: index + 1, reason: "bad field in '\(line)'") }
      let eph = fields[3].isEmpty ? nil : Double(fields[3])
      fixes.append(
        Fix(
          time: time, coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon), mode: mode,
          source: "csv", horizontalAccuracyMeters: eph))
    }
    return fixes
  }
}

extension Date {
  /// Test shorthand: seconds after 2026-05-04T10:00:00Z.
  static func t(_ seconds: Double) -> Date {
    Date(timeIntervalSince1970: 1_777_888_800 + seconds)
  }
}

/// A fix at `coordinate`, `seconds` after the test epoch.
func testFix(
  _ seconds: Double, _ coordinate: Coordinate, eph: Double? = 5, mode: FixMode = .threeD
) -> Fix {
  Fix(
    time: .t(seconds), coordinate: coordinate, mode: mode, source: "test",
    horizontalAccuracyMeters: eph)
}

/// The point `meters` from `origin` at `bearing` degrees.
func offset(_ origin: Coordinate, _ bearing: Double, _ meters: Double) -> Coordinate {
  try! origin.destination(bearingDegrees: bearing, distanceMeters: meters)
}

let sigtuna = Coordinate(uncheckedLatitude: 59.617, longitude: 17.724)
