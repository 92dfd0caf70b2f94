import Foundation
import MissionTracking
import Testing

@testable import MissionStore

/// Issue 24 #2: an import is all or nothing for a reader of the engine's directory too (the
/// grid nearby queries read), not only for a reader of the store.
@Suite struct ImportVisibilityTests {
  /// A source with nothing to say: no mission is tracked here.
  struct SilentSource: FixSource {
    func reports() -> AsyncThrowingStream<SourceReport, any Error> {
      AsyncThrowingStream { $0.finish() }
    }
  }

  /// Below `MissionDirectory.rebuildMinimum` the import is applied under one write lock;
  /// above it the directory is laid out anew and swapped in.
  @Test(arguments: [5_000, 20_000])
  func aReaderOfTheDirectorySeesNoneOfAnImportOrAllOfIt(count: Int) async throws {
    let directory = try TemporaryDirectory()
    let database = try Fixtures.database(in: directory)
    // No polling of its own: the import reaches the engine through `synchronize()`, as
    // after `POST /v1/missions`.
    let engine = MissionEngine(
      store: database, source: SilentSource(),
      configuration: .init(changePollInterval: .seconds(3600)))
    try await engine.open()
    engine.directory.keepJSON()
    var csv = "id,lat,lon\n"
    for index in 0..<count { csv += "m\(index),59.\(1000 + index % 8000),18.0\(index % 97)\n" }
    try database.importMissions(Array(csv.utf8), format: .csv, fileName: "big.csv")

    // A reader on its own thread, as the service's nearby queries are.
    let seen = Shared<Set<Int>>([])
    let stop = Shared(false)
    let stopped = Shared(false)
    let reader = Thread {
      while !stop.get() {
        let open = engine.directory.countsByState[.open] ?? 0
        seen.update { $0.insert(open) }
      }
      stopped.update { $0 = true }
    }
    reader.start()
    while seen.get().isEmpty { try await Task.sleep(for: .milliseconds(1)) }
    await engine.synchronize()
    // Read after the engine took it in, so the reader saw both sides of the change.
    while !seen.get().contains(count) { try await Task.sleep(for: .milliseconds(1)) }
    stop.update { $0 = true }
    while !stopped.get() { try await Task.sleep(for: .milliseconds(1)) }
    let partial = seen.get().subtracting([0, count])
    #expect(
      partial.isEmpty,
      "a reader saw \(partial.count) partial states, e.g. \(partial.sorted().prefix(5)) missions")
    #expect(engine.directory.mission("m\(count - 1)") != nil)
    await engine.shutdown()
  }
}
