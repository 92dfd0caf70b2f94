import CommandLineSupport
import Foundation
import MissionStore
import MissionTracking
import Testing

@testable import MissionTrackCLI

/// `replay` end to end in process: the demo missions and walk through the real pipeline and
/// a real SQLite file.
@Suite struct ReplayCommandTests {
  @Test func replayingTheDemoWalkArrivesOnceAndRecordsEveryDeliveredFix() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let path = box.databasePath
    let console = Console.capture()
    let status = await MissionTrackTool.run(
      ["replay", CLISandbox.walkGPX, "--db", path, "--mission", "sig-101"], console: console)
    #expect(status == 0, "\(console.capturedError)")
    let lines = CLISandbox.jsonLines(console.capturedOutput)
    let types = lines.compactMap { $0["type"] as? String }
    #expect(types.first == "state")
    let ownEnters = lines.filter {
      $0["type"] as? String == "enter" && $0["fence_id"] as? String == "sig-101"
    }
    #expect(ownEnters.count == 1)
    let arrivals = lines.filter {
      $0["type"] as? String == "state" && $0["to"] as? String == "arrived"
    }
    #expect(arrivals.count == 1)
    let fixes = lines.filter { $0["type"] as? String == "fix" }
    #expect(fixes.count > 50)
    #expect(
      fixes.allSatisfy { $0["mission_id"] as? String == "sig-101" && $0["distance_m"] is Double })
    #expect(console.capturedError.contains("fixes delivered"))

    let database = try MissionDatabase(path: path)
    #expect(try database.track(ofMission: "sig-101").count == fixes.count)
    #expect(try database.mission(id: "sig-101")?.state == .arrived)
    #expect(try database.integrityCheck() == ["ok"])
  }

  @Test func aSecondReplayResumesWithoutADuplicateEnter() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let path = box.databasePath
    let first = Console.capture()
    #expect(
      await MissionTrackTool.run(
        ["replay", CLISandbox.walkGPX, "--db", path, "--mission", "sig-101"], console: first) == 0)
    // The same trace again: every fix is a duplicate of the stored track, the mission is
    // resumed (no state event, no second enter).
    let second = Console.capture()
    #expect(
      await MissionTrackTool.run(["replay", CLISandbox.walkNMEA, "--db", path], console: second)
        == 0)
    let lines = CLISandbox.jsonLines(second.capturedOutput)
    #expect(
      !lines.contains { $0["type"] as? String == "enter" && $0["fence_id"] as? String == "sig-101" }
    )
    #expect(!lines.contains { $0["type"] as? String == "state" })
    #expect(second.capturedError.contains("resuming mission sig-101"))
    #expect(second.capturedError.contains("arrived in an earlier run"))
  }

  @Test func replayRefusesWhatItCannotTrack() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let path = box.databasePath
    let noMission = Console.capture()
    #expect(
      await MissionTrackTool.run(["replay", CLISandbox.walkGPX, "--db", path], console: noMission)
        == 1)
    #expect(noMission.capturedError.contains("worker local has no active mission"))
    let missingTrace = Console.capture()
    #expect(
      await MissionTrackTool.run(
        ["replay", "/nonexistent.gpx", "--db", path, "--mission", "sig-101"], console: missingTrace)
        == 1)
    let usage = Console.capture()
    #expect(await MissionTrackTool.run(["replay", "--db", path], console: usage) == 64)
    let badRollover = Console.capture()
    #expect(
      await MissionTrackTool.run(
        ["replay", CLISandbox.walkNMEA, "--db", path, "--rollover-after", "2017"],
        console: badRollover) == 64)
    #expect(badRollover.capturedError.contains("--rollover-after expects YYYY-MM-DD"))
    #expect(
      await MissionTrackTool.run(
        ["replay", CLISandbox.walkGPX, "--db", path, "--speed", "0"], console: usage) == 64)
    let database = try MissionDatabase(path: path)
    try database.apply(.cancel, toMission: "sig-102")
    try database.close()
    let cancelled = Console.capture()
    #expect(
      await MissionTrackTool.run(
        ["replay", CLISandbox.walkGPX, "--db", path, "--mission", "sig-102"], console: cancelled)
        == 1)
    #expect(cancelled.capturedError.contains("cannot start mission sig-102: it is cancelled"))
  }
}
