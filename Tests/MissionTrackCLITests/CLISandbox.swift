import CommandLineSupport
import Foundation
import MissionProximity
import MissionStore
import MissionTracking

@testable import MissionTrackCLI

/// A temporary directory with a database path, for running commands in process.
final class CLISandbox {
  let directory: URL
  let databasePath: String

  /// The package root, found from this file (Tests/MissionTrackCLITests/CLISandbox.swift).
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The bundled demo missions.
  static let demoMissions = packageRoot.appendingPathComponent("Traces/demo/missions.geojson")
    .path

  /// The bundled demo walk to sig-101, as GPX and as NMEA.
  static let walkGPX = packageRoot.appendingPathComponent("Traces/demo/walk.gpx").path
  static let walkNMEA = packageRoot.appendingPathComponent("Traces/demo/walk.nmea").path

  init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("mt-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    databasePath = directory.appendingPathComponent("test.sqlite").path
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  /// A path inside the sandbox.
  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

  /// The text of file `name` in the sandbox ("" when absent).
  func read(_ name: String) -> String {
    (try? String(contentsOfFile: path(name), encoding: .utf8)) ?? ""
  }

  /// Runs the tool with `--db` pointing at the sandbox database.
  func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
    let console = Console.capture()
    let status = await MissionTrackTool.run(arguments + ["--db", databasePath], console: console)
    return (status, console.capturedOutput, console.capturedError)
  }

  /// Imports the demo missions.
  func importDemo() async throws {
    let result = await run(["missions", "import", CLISandbox.demoMissions])
    guard result.status == 0 else { throw CLIError.failure(result.err) }
  }

  /// Imports the demo missions and accepts `sig-101`, the one the demo walk goes to.
  func acceptedDemo() async throws {
    try await importDemo()
    let database = try MissionDatabase(path: databasePath)
    try database.apply(.accept, toMission: "sig-101")
    try database.close()
  }

  /// Records a straight walk of `count` fixes, 20 m apart, ending at `mission`'s point, with
  /// an enter event at the end (as a tracker would).
  func recordWalk(toMission id: String, count: Int = 12) throws {
    let database = try MissionDatabase(path: databasePath)
    guard let mission = try database.mission(id: id) else { throw CLIError.failure(id) }
    let start = Date(timeIntervalSince1970: 1_777_600_000)
    var events: [TrackingEvent] = []
    var travelled = 0.0
    for i in 0..<count {
      let back = Double(count - 1 - i) * 20
      let point = try mission.coordinate.destination(bearingDegrees: 200, distanceMeters: back)
      let fix = Fix(
        time: start.addingTimeInterval(Double(i) * 15), coordinate: point, source: "test",
        horizontalAccuracyMeters: 5)
      if i > 0 { travelled += 20 }
      events.append(
        TrackingEvent(
          time: fix.time, missionID: id,
          kind: .fix(fix, distanceToMissionMeters: back, travelledMeters: travelled)))
    }
    let entered = start.addingTimeInterval(Double(count - 1) * 15)
    events.append(
      TrackingEvent(
        time: entered, missionID: id, kind: .enter(fenceID: id, distanceMeters: 0, initial: false)))
    try database.record(
      TrackingBatch(
        missionID: id, events: events,
        fenceStates: [id: FenceState(isInside: true, insideSince: entered)],
        travelledMeters: travelled))
    try database.close()
  }

  /// Parses each non-empty line of `text` as a JSON object.
  static func jsonLines(_ text: String) -> [[String: Any]] {
    text.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
  }
}
