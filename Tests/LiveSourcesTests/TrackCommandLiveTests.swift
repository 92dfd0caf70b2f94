import Foundation
import MissionStore
import MissionTracking
import Testing

/// The built `missiontrack track` against a real gpsd: it follows the mission, holds a
/// connection to gpsd only while tracking, and stops cleanly on SIGTERM.
@Suite(.serialized, .enabled(if: GPSDHarness.isAvailable, "gpsd and socat must be installed"))
struct TrackCommandLiveTests {
  static let tool: String? = {
    let build = TestData.packageRoot.appendingPathComponent(".build")
    return ["debug/missiontrack", "release/missiontrack"].map {
      build.appendingPathComponent($0).path
    }.first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  private func run(_ arguments: [String], output: URL) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: Self.tool!)
    process.arguments = arguments
    _ = FileManager.default.createFile(atPath: output.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: output)
    process.standardError = FileHandle.nullDevice
    try process.run()
    return process
  }

  private func waitFor(_ deadline: TimeInterval, _ condition: () -> Bool) async throws -> Bool {
    let end = Date().addingTimeInterval(deadline)
    while Date() < end {
      if condition() { return true }
      try await Task.sleep(for: .milliseconds(20))
    }
    return condition()
  }

  @Test(.enabled(if: tool != nil, "needs the built missiontrack (swift build)"))
  func trackFollowsGPSDOnlyWhileAMissionIsTracked() async throws {
    let demo = try DemoDatabase(tag: "track-gpsd")
    let (directory, db) = (demo.directory, demo.path)

    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = try harness.startGPSDWithTheDemoWalk()
    let endpoint = "127.0.0.1:\(port)"

    // No mission is active: track refuses at once and never connects.
    let refused = try run(
      ["track", "--gpsd", endpoint, "--db", db],
      output: directory.appendingPathComponent("refused.out"))
    refused.waitUntilExit()
    #expect(refused.terminationStatus == 1)
    #expect(GPSDHarness.clients(ofGPSDOn: port) == 0)

    // The accepted mission is started and followed live until the worker arrives.
    let store = try MissionDatabase(path: db)
    try store.apply(.accept, toMission: "sig-101")
    try store.close()
    let output = directory.appendingPathComponent("track.out")
    let track = try run(
      ["track", "--gpsd", endpoint, "--mission", "sig-101", "--db", db], output: output)
    defer { if track.isRunning { kill(track.processIdentifier, SIGKILL) } }
    let printed = { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
    let arrived = try await waitFor(60) { printed().contains(#""from":"active","to":"arrived""#) }
    #expect(arrived)
    #expect(printed().contains(#""status":"connected""#))
    // One connection while tracking, counted at gpsd's side. Polled: the count comes from
    // the system-wide /proc/net/tcp, where a transient socket was once seen beside ours
    // while the whole suite ran.
    #expect(try await waitFor(60) { GPSDHarness.clients(ofGPSDOn: port) == 1 })

    kill(track.processIdentifier, SIGTERM)
    let exited = try await waitFor(60) { !track.isRunning }
    #expect(exited)
    track.waitUntilExit()
    #expect(track.terminationStatus == 0)
    #expect(try await waitFor(60) { GPSDHarness.clients(ofGPSDOn: port) == 0 })
    let fixLines = printed().split(separator: "\n").filter { $0.contains(#""type":"fix""#) }
    let stored = try MissionDatabase(path: db)
    #expect(try stored.track(ofMission: "sig-101").count == fixLines.count)
    #expect(try stored.mission(id: "sig-101")?.state == .arrived)
  }
}
