import Foundation
import MissionTracking
import TextRules
import TraceFormats

@testable import LiveSources

/// Locations of the test inputs, found from this file's path.
enum TestData {
  /// The package root: two levels above `Tests/GPSDSourceTests/`.
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// `../shared/reference/gpsd-nmea` beside the package root (absent in a user's clone).
  static let gpsdReference = packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/reference/gpsd-nmea")

  static var hasGPSDReference: Bool {
    FileManager.default.fileExists(atPath: gpsdReference.appendingPathComponent("README.md").path)
  }

  /// The project's own trace with known ground truth (see Tools/make-gpsd-trace.py).
  static let shortTrace = packageRoot.appendingPathComponent("Traces/gpsd/short.nmea")

  /// The lines of the short trace (with their CR LF).
  static func shortTraceLines() throws -> [String] {
    let text = try String(contentsOf: shortTrace, encoding: .utf8)
    // "\r\n" is one Character in Swift, so split on it, not on "\n".
    return text.split(separator: "\r\n").map { $0 + "\r\n" }
  }

  /// Ground truth of the short trace's fix `k` (0-based): 2024-05-01T10:00:03Z + k s,
  /// 59.3293 N 18.0686 E moving north 5 m/s, altitude 25.0 + 0.1 k m.
  static func shortTraceTruth(_ k: Int) -> (
    time: Date, latitude: Double, longitude: Double,
    altitude: Double
  ) {
    let start = UTCTime.date(year: 2024, month: 5, day: 1, secondsOfDay: 36_003)
    let latitude = 59.3293 + (5.0 * Double(k) / 6_371_008.8) * 180 / .pi
    return (start.addingTimeInterval(Double(k)), latitude, 18.0686, 25.0 + 0.1 * Double(k))
  }

  /// What `missiontrack decode` gives for gpsd JSON `text` (`GPSDJSONDecoder`, lenient).
  static func decodeGPSDJSON(_ text: String) throws -> [Fix] {
    var decoder = GPSDJSONDecoder()
    var fixes: [Fix] = []
    try Array(text.utf8).withUnsafeBytes { try decoder.decode($0, into: &fixes) }
    try decoder.finish(into: &fixes)
    return fixes
  }

  /// What `missiontrack decode` gives for the trace `bytes` (format detected from content,
  /// as for a file on the command line).
  static func decodeTrace(_ bytes: [UInt8]) throws -> [Fix] {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "live-transcript-\(UUID().uuidString)")
    try Data(bytes).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    var fixes: [Fix] = []
    try TraceReader(path: url.path).forEachBatch { fixes += $0 }
    return fixes
  }

  /// Runs `tool` with `arguments` and returns what it printed on standard output.
  static func run(_ tool: String, _ arguments: [String]) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = try output.fileHandleForReading.readToEnd() ?? Data()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  /// The fixes a live source delivers out of `fixes`: each one whose time is after the last
  /// delivered one (the live sources' stale-fix rule).
  static func admittedLive(_ fixes: [Fix]) -> [Fix] {
    var delivery = LiveFixDelivery(outageSubject: "test")
    return fixes.filter {
      if case .deliver = delivery.admit($0) { true } else { false }
    }
  }

  /// An NMEA sentence with its checksum: `$BODY*HH\r\n`.
  static func sentence(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0), ^)
    return "$\(body)*\(String(format: "%02X", sum))\r\n"
  }
}

/// gpsd's expected output for a log (`.chk`), reduced to what the source must deliver.
struct ChkOracle {
  struct Expected: Equatable {
    var time: Date
    var latitude: Double
    var longitude: Double
    var altitudeMSL: Double?
    var mode: Int
  }

  /// The fixes the source must deliver, in order, modelled on gpsd's TPV lines: a TPV with
  /// mode ≥ 2, `lat`, `lon` and `time` is a fix; consecutive TPVs with one time are one
  /// fix whose position is the last one's; a no-fix TPV ends the epoch; a fix whose time is
  /// not after the last delivered one is dropped.
  var fixes: [Expected] = []
  /// Distinct times of TPVs with lat/lon and time (the README's "distinct t").
  var distinctTimes: Set<Date> = []
  /// For each time, gpsd's last TPV with that time.
  var lastByTime: [Date: Expected] = [:]
  /// Epochs dropped because their time was not after the last delivered one.
  var staleFixes = 0
  /// TPVs with mode 0 or 1.
  var noFixReports = 0
  /// TPVs with mode ≥ 2 but without lat, lon or time.
  var unusableReports = 0

  init(chk: URL) throws {
    let text = try String(contentsOf: chk, encoding: .utf8)
    var pending: Expected?
    var lastDelivered: Date?
    func release() {
      guard let fix = pending else { return }
      pending = nil
      if let lastDelivered, fix.time <= lastDelivered {
        staleFixes += 1
        return
      }
      lastDelivered = fix.time
      fixes.append(fix)
    }
    for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
      guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
        let mode = object["mode"] as? Int
      else { continue }
      if mode < 2 {
        noFixReports += 1
        release()
        continue
      }
      guard let lat = object["lat"] as? Double, let lon = object["lon"] as? Double,
        let timeText = object["time"] as? String, let time = UTCTime.parse(timeText)?.date
      else {
        unusableReports += 1
        continue
      }
      let expected = Expected(
        time: time, latitude: lat, longitude: lon,
        altitudeMSL: mode >= 3 ? object["altMSL"] as? Double : nil, mode: mode)
      distinctTimes.insert(time)
      lastByTime[time] = expected
      if let current = pending {
        if current.time != time { release() }
      }
      pending = expected
    }
    release()
  }
}

extension LiveSourceCounters {
  /// Lines that were not gpsd reports at all: not JSON, no class, or over-long.
  var garbageLines: Int {
    ["bad JSON", "no class", "line too long"].reduce(0) { $0 + statistics.skipped[$1, default: 0] }
  }

  /// TPVs with mode ≥ 2 but no usable time or position.
  var unusableReports: Int {
    ["no position", "no time", "bad time", "bad position"].reduce(0) {
      $0 + statistics.skipped[$1, default: 0]
    }
  }
}
