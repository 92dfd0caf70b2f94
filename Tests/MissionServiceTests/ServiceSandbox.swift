import Foundation
import ServiceTestSupport

/// A temporary directory with a database of the demo missions, for tests of `serve`.
final class ServiceSandbox {
  let directory: URL
  let databasePath: String

  static let demoMissions = ServeProcess.packageRoot.appendingPathComponent(
    "Traces/demo/missions.geojson"
  ).path
  static let walkGPX = ServeProcess.packageRoot.appendingPathComponent("Traces/demo/walk.gpx")
    .path

  /// A sandbox; with `demo`, the demo missions are imported into its database.
  init(demo: Bool = true) throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("mt-serve-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    databasePath = directory.appendingPathComponent("serve.sqlite").path
    if demo {
      let result = try ServeProcess.run(
        ["missions", "import", Self.demoMissions, "--db", databasePath], in: directory)
      guard result.status == 0 else { throw ServeProcess.Failure(description: result.err) }
    }
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  /// Starts `serve --db DB ARGUMENTS` (on `listen`, a free loopback port by default).
  func serve(
    _ arguments: [String] = [], tag: String = "serve", listen: String? = "127.0.0.1:0"
  ) throws -> ServeProcess {
    try ServeProcess(["--db", databasePath] + arguments, in: directory, tag: tag, listen: listen)
  }

  /// Runs `missiontrack ARGUMENTS --db DB` to its end (killed after `timeout` seconds).
  func cli(_ arguments: [String], timeout: Double = 120) throws
    -> (status: Int32, out: String, err: String)
  {
    try ServeProcess.run(arguments + ["--db", databasePath], in: directory, timeout: timeout)
  }

  /// A path inside the sandbox.
  func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
}
