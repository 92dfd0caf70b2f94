import Foundation
import MissionTracking
import TraceFormats

/// Synthetic walks for the fault-injection tests, and a way to read a trace back from text.
enum MutationFixtures {
  static let start = Date(timeIntervalSince1970: 1_777_888_800)  // 2026-05-04T10:00:00Z
  static let origin = Coordinate(uncheckedLatitude: 59.6237, longitude: 17.7351)

  /// `count` 3D fixes at 1 Hz walking north-east at 1.4 m/s, with every optional field set.
  static func walk(count: Int = 600) -> [Fix] {
    (0..<count).map { i in
      let point =
        (try? origin.destination(bearingDegrees: 45, distanceMeters: 1.4 * Double(i))) ?? origin
      return Fix(
        time: start.addingTimeInterval(Double(i)), coordinate: point, mode: .threeD,
        source: "test", altitudeMeters: 40 + Double(i % 7), horizontalAccuracyMeters: 4.5,
        speedMetersPerSecond: 1.4, courseDegrees: 45, satellitesUsed: 9)
    }
  }

  /// `count` fixes at one point, one per second.
  static func standing(count: Int) -> [Fix] {
    (0..<count).map { i in
      Fix(time: start.addingTimeInterval(Double(i)), coordinate: origin, source: "test")
    }
  }

  /// Reads `text` back through `TraceReader` (from a temporary file), as a user would.
  static func read(_ text: String) throws -> (fixes: [Fix], format: TraceFormat?) {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("mutation-\(UUID().uuidString)")
    try Data(text.utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let reader = try TraceReader(path: url.path)
    var fixes: [Fix] = []
    try reader.forEachBatch { fixes += $0 }
    return (fixes, reader.format)
  }

  /// `fixes` with each run of equal times folded into its first fix: what an NMEA or gpsd
  /// reader makes of a report repeated in a row (one epoch).
  static func foldingRepeatedEpochs(_ fixes: [Fix]) -> [Fix] {
    var result: [Fix] = []
    for fix in fixes where result.last?.time != fix.time { result.append(fix) }
    return result
  }
}
