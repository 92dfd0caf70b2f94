import Foundation
import MissionStore

/// A temporary directory holding a database of the bundled demo missions, for the tests that
/// run the built binary against live sources; removed when released.
final class DemoDatabase {
  let directory: URL
  let path: String

  init(tag: String) throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(tag)-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    path = directory.appendingPathComponent("db.sqlite").path
    let database = try MissionDatabase(path: path)
    _ = try database.importMissions(
      from: TestData.packageRoot.appendingPathComponent("Traces/demo/missions.geojson"))
    try database.close()
  }

  deinit { try? FileManager.default.removeItem(at: directory) }
}

/// Waits up to `seconds` for `condition`, polling every 20 ms; returns whether it held.
/// Sleeps with `Task.sleep`, so a long wait never holds one of the few threads the whole
/// test run shares.
func poll(for seconds: TimeInterval, _ condition: () -> Bool) async -> Bool {
  let end = Date().addingTimeInterval(seconds)
  while Date() < end {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(20))
  }
  return condition()
}
