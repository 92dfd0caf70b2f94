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
func poll(for seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
  let end = Date().addingTimeInterval(seconds)
  while Date() < end {
    if condition() { return true }
    usleep(20_000)
  }
  return condition()
}
