import Foundation
import MissionTracking
import Testing

@testable import MissionStore

/// Kills a real writer process with SIGKILL mid-batch, several times, and checks what a
/// restart finds. The writer is this same test binary, started again with an environment
/// variable that turns the test into the writer (no extra build step).
@Suite struct CrashTests {
  static let writerVariable = "MISSIONSTORE_CRASH_WRITER_DB"
  static let batch = 64
  static let arriveAt = 1000

  /// The running test executable, when it is a SwiftPM test bundle that can be re-run.
  static var testExecutable: String? {
    let path = CommandLine.arguments.first ?? ""
    return path.hasSuffix(".xctest") && FileManager.default.isExecutableFile(atPath: path)
      ? path : nil
  }

  /// Either the writer (in the child) or the killer (in the test run).
  @Test(
    .enabled(
      if: testExecutable != nil || ProcessInfo.processInfo.environment[writerVariable] != nil,
      "needs the SwiftPM test executable to start the writer process"))
  func aWriterKilledMidBatchLosesOnlyItsUncommittedBatch() throws {
    if let path = ProcessInfo.processInfo.environment[Self.writerVariable] {
      try Self.runWriter(path: path)
      return
    }
    let directory = try TemporaryDirectory()
    let path = directory.path()
    try Fixtures.database(in: directory, missions: [Fixtures.mission("m", state: .active)])
      .close()
    var generator = SplitMix64(seed: 99)
    var previous = 0
    var environment = ProcessInfo.processInfo.environment
    environment[Self.writerVariable] = path
    for _ in 0..<5 {
      let child = Process()
      child.executableURL = URL(fileURLWithPath: Self.testExecutable!)
      child.arguments = [
        "--testing-library", "swift-testing", "--filter",
        "aWriterKilledMidBatchLosesOnlyItsUncommittedBatch",
      ]
      child.environment = environment
      child.standardOutput = FileHandle.nullDevice
      child.standardError = FileHandle.nullDevice
      try child.run()
      // Wait until the writer has committed something new, then kill it at a random moment.
      let reader = try MissionDatabase(
        path: path, configuration: StoreConfiguration(readOnly: true))
      let deadline = Date().addingTimeInterval(30)
      while try reader.track(ofMission: "m").count <= previous, Date() < deadline,
        child.isRunning
      {
        usleep(2000)
      }
      try reader.close()
      usleep(UInt32.random(in: 0...150_000, using: &generator))
      kill(child.processIdentifier, SIGKILL)
      child.waitUntilExit()
      #expect(child.terminationReason == .uncaughtSignal)

      // What a restart finds.
      let restarted = try MissionDatabase(path: path)
      #expect(try restarted.integrityCheck() == ["ok"])
      let track = try restarted.track(ofMission: "m")
      #expect(track.count > previous)
      // Every fix up to the last committed batch, in order, no gap, no duplicate.
      let contiguous = track.enumerated().allSatisfy { index, fix in
        abs(fix.time.timeIntervalSince(Fixtures.fix(index).time)) < 1e-6
      }
      #expect(contiguous)
      let events = try restarted.events(ofMission: "m")
      #expect(events.filter { $0.type == "fix" }.count == track.count)
      let resumed = try #require(try restarted.activeMission())
      #expect(resumed.mission.id == "m" && resumed.trackFixCount == track.count)
      // The arrival commits with (and after) the fixes before it.
      #expect(resumed.mission.state == (track.count >= Self.arriveAt ? .arrived : .active))
      #expect(
        try restarted.transitions(ofMission: "m").count == (track.count >= Self.arriveAt ? 1 : 0))
      previous = track.count
      try restarted.close()
    }
  }

  /// The child: resumes the replay after the last stored fix and records until killed.
  static func runWriter(path: String) throws {
    let database = try MissionDatabase(
      path: path,
      configuration: StoreConfiguration(
        synchronous: .normal,
        groupCommit: GroupCommitPolicy(maxEvents: batch, maxDelay: .seconds(3600))))
    let start = try database.activeMission()?.trackFixCount ?? 0
    let stop = Date().addingTimeInterval(20)
    var index = start
    while Date() < stop {
      if index == arriveAt {
        try database.apply(.arrive, toMission: "m", at: Fixtures.fix(index).time)
      }
      try database.record(Fixtures.fixEvent(index, mission: "m"))
      index += 1
    }
    database.abandon()
  }
}
