import Foundation
import MissionStore
import MissionTracking
import Testing
import TextRules

@testable import MissionTrackCLI

/// The built `missiontrack replay` killed with SIGKILL at random moments, again and again:
/// the database must stay intact, hold exactly a prefix of what an uninterrupted run
/// records (no gap, no duplicate), and the next run must resume the mission where the last
/// committed batch left it, ending with exactly the uninterrupted run's track.
@Suite(.serialized) struct CrashSafetyTests {
  /// A 1 Hz trace of `count` fixes that swings ±2 km through the fence of `center`, as GPX.
  static func swingTrace(around center: Coordinate, count: Int) -> String {
    var text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <gpx version="1.1" creator="CrashSafetyTests" xmlns="http://www.topografix.com/GPX/1/1">
      <trk><trkseg>

      """
    let start = 1_714_557_600.0
    for i in 0..<count {
      let t = Double(i)
      let north = 2000 * sin(2 * Double.pi * t / 1200) - 300
      let east = 40 * sin(t / 37)
      let lat = center.latitude + north / 111_195
      let lon = center.longitude + east / (111_195 * cos(center.latitude * Double.pi / 180))
      let time = UTCTime.format(Date(timeIntervalSince1970: start + t))
      text += "<trkpt lat=\"\(lat)\" lon=\"\(lon)\"><time>\(time)</time></trkpt>\n"
    }
    return text + "</trkseg></trk></gpx>\n"
  }

  private func prepare(_ directory: URL, name: String) throws -> String {
    let path = directory.appendingPathComponent(name).path
    let database = try MissionDatabase(path: path)
    _ = try database.importMissions(
      from: CLISandbox.packageRoot.appendingPathComponent("Traces/demo/missions.geojson"))
    try database.apply(.accept, toMission: "sig-101")
    try database.close()
    return path
  }

  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func killedReplaysLoseOnlyTheUncommittedBatchAndResume() async throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("crash-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let reference = try prepare(directory, name: "reference.sqlite")
    let center = try #require(try MissionDatabase(path: reference).mission(id: "sig-101"))
      .coordinate
    let trace = directory.appendingPathComponent("swing.gpx")
    try Self.swingTrace(around: center, count: 30_000).write(
      to: trace, atomically: true, encoding: .utf8)

    // The uninterrupted run, by the built tool.
    let whole = try BuiltTool.start(
      ["replay", trace.path, "--db", reference, "--mission", "sig-101", "--no-other-fences"],
      in: directory, tag: "reference")
    whole.waitUntilExit()
    try #require(whole.terminationStatus == 0)
    let expected = try MissionDatabase(path: reference).track(ofMission: "sig-101").map(\.time)
    let expectedEnters = try MissionDatabase(path: reference).eventLines(ofMission: "sig-101")
      .filter { $0.contains(#""type":"enter""#) }.count
    try #require(expected.count > 10_000 && expectedEnters > 5)

    let path = try prepare(directory, name: "crash.sqlite")
    var rng = SplitMix64(seed: 2026)
    var kills = 0
    var previous = 0
    var progressed = 0
    var history: [Int] = []
    for round in 0..<12 {
      var arguments = ["replay", trace.path, "--db", path, "--no-other-fences"]
      if round == 0 { arguments += ["--mission", "sig-101"] }
      let process = try BuiltTool.start(arguments, in: directory, tag: "run\(round)")
      // Kill once the run has committed a random number of new fixes (a reader on its own
      // connection watches), then a few milliseconds later, so that every round lands
      // mid-run however fast or loaded the machine is: a pause in time alone let a fast
      // run commit a third of the track per round and finish before the fourth kill.
      let watcher = try MissionDatabase(path: path)
      let target = previous + 1 + Int(rng.next() % 1000)  // under one commit (~2,600 fixes)
      let pauseMicroseconds = UInt32(rng.next() % 4_000)
      // Polled on a thread of its own: the test pool may be busy with other tests, and a
      // late wake-up would let the run finish before the kill.
      let killed = await onOwnThread {
        let deadline = Date().addingTimeInterval(60)
        while process.isRunning, Date() < deadline,
          (try? watcher.activeMission()?.trackFixCount ?? 0) ?? 0 < target
        {
          usleep(500)
        }
        usleep(pauseMicroseconds)
        guard process.isRunning else { return false }
        kill(process.processIdentifier, SIGKILL)
        return true
      }
      try watcher.close()
      if killed { kills += 1 }
      process.waitUntilExit()
      let database = try MissionDatabase(path: path)
      #expect(try database.integrityCheck() == ["ok"])
      let stored = try database.track(ofMission: "sig-101").map(\.time)
      // A prefix of the uninterrupted track: nothing lost before the last commit, no gap,
      // no duplicate, and never less than before.
      #expect(stored.count <= expected.count)
      #expect(Array(expected.prefix(stored.count)) == stored, "round \(round)")
      #expect(stored.count >= previous)
      // Progress, or nothing left to do (a run may reach the end before its kill).
      if stored.count > previous || stored.count == expected.count { progressed += 1 }
      history.append(stored.count)
      previous = stored.count
      #expect(try database.activeMission()?.mission.id == "sig-101")
      try database.close()
    }
    #expect(kills >= 4, "stored after each round: \(history)")
    #expect(progressed >= 8, "every round commits something new before it is killed")

    // A last run to the end resumes and completes exactly the uninterrupted track.
    let finish = try BuiltTool.start(
      ["replay", trace.path, "--db", path], in: directory, tag: "final")
    finish.waitUntilExit()
    #expect(finish.terminationStatus == 0)
    let database = try MissionDatabase(path: path)
    #expect(try database.track(ofMission: "sig-101").map(\.time) == expected)
    let lines = try database.eventLines(ofMission: "sig-101")
    let enters = lines.filter { $0.contains(#""type":"enter""#) }.count
    #expect(enters == expectedEnters, "no duplicate enter after the crashes")
  }
}

/// Runs `body` on a new thread (never on the shared test pool) and returns its result.
private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    Thread { continuation.resume(returning: body()) }.start()
  }
}
