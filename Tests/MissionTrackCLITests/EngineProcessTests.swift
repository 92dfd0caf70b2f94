import Foundation
import MissionStore
import MissionTracking
import Testing

/// The engine's promises as a user meets them: the built `missiontrack` in several
/// processes on one database.
@Suite struct EngineProcessTests {
  /// Runs the built tool to completion in `box`'s directory.
  static func run(_ box: CLISandbox, _ arguments: [String], tag: String) async throws -> (
    status: Int32, out: String, err: String
  ) {
    let process = try BuiltTool.start(arguments, in: box.directory, tag: tag)
    while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
    return (process.terminationStatus, box.read("\(tag).out"), box.read("\(tag).err"))
  }

  /// Waits (at most 60 s, a guard against a hang) until `file` in the sandbox contains
  /// `text`.
  static func waitFor(_ text: String, in file: String, of box: CLISandbox) async throws {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline, !box.read(file).contains(text) {
      try await Task.sleep(for: .milliseconds(20))
    }
    #expect(box.read(file).contains(text), "\(file) never showed \(text)")
  }

  static func stop(_ process: Process, _ signal: Int32 = SIGTERM) async throws {
    kill(process.processIdentifier, signal)
    let deadline = Date().addingTimeInterval(60)
    while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func aSecondTrackerOnTheSameDatabaseIsRefusedNamingTheFirst() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let db = box.databasePath
    let first = try BuiltTool.start(
      ["replay", CLISandbox.walkGPX, "--db", db, "--mission", "sig-101", "--speed", "4"],
      in: box.directory, tag: "first")
    try await Self.waitFor(#""type":"fix""#, in: "first.out", of: box)
    let second = try await Self.run(
      box, ["replay", CLISandbox.walkGPX, "--db", db, "--mission", "sig-101"], tag: "second")
    #expect(second.status == 1)
    #expect(second.err.contains("pid \(first.processIdentifier) (missiontrack replay)"))
    #expect(second.err.split(separator: "\n").count == 1)
    #expect(second.out.isEmpty)
    // SIGTERM stops the first cleanly: everything printed is recorded, once.
    try await Self.stop(first)
    #expect(first.terminationReason == .exit && first.terminationStatus == 0)
    let printed = box.read("first.out")
    #expect(printed.hasSuffix(#""status":"ended","detail":"stopped by SIGTERM"}"# + "\n"))
    let stored = try MissionDatabase(path: db)
    let printedLines = printed.split(separator: "\n").map(String.init)
    // The stored log: the accept (done before), then exactly what was printed.
    #expect(Array(try stored.eventLines(ofMission: "sig-101").dropFirst()) == printedLines)
    // The lease died with the process: the next tracker may start at once.
    let third = try await Self.run(
      box, ["replay", CLISandbox.walkGPX, "--db", db, "--mission", "sig-101"], tag: "third")
    #expect(third.status == 0, "\(third.err)")
  }

  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func aSubmitFromAnotherShellStopsTheReplayWithNothingRecordedAfterIt() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let db = box.databasePath
    let replay = try BuiltTool.start(
      ["replay", CLISandbox.walkGPX, "--db", db, "--mission", "sig-101", "--speed", "30"],
      in: box.directory, tag: "replay")
    try await Self.waitFor(#""type":"fix""#, in: "replay.out", of: box)
    let runningAtSubmit = replay.isRunning
    let submit = try await Self.run(
      box, ["missions", "submit", "sig-101", "--db", db], tag: "submit")
    #expect(submit.status == 0)
    let submittedAt = Date()
    while replay.isRunning && Date().timeIntervalSince(submittedAt) < 10 {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(Date().timeIntervalSince(submittedAt) < 2, "replay kept running after the submit")
    if replay.isRunning { try await Self.stop(replay, SIGKILL) }
    #expect(replay.terminationStatus == 0)
    // (On a machine loaded enough for the 34 s walk to end before the submit came in,
    // there was nothing to stop.)
    if runningAtSubmit {
      #expect(box.read("replay.err").contains("mission sig-101 is submitted now"))
    }
    let events = try MissionDatabase(path: db).eventLines(ofMission: "sig-101")
    // The submit is the last event recorded. On a loaded machine the walk may have arrived
    // before the submit came in (speed 30): then it is arrived → submitted.
    let last = events.last ?? ""
    #expect(last.contains(#""to":"submitted""#))
    let arrived = events.contains { $0.contains(#""to":"arrived""#) }
    #expect(last.contains(arrived ? #""from":"arrived""# : #""from":"active""#))
    #expect(events.filter { $0.contains(#""type":"state""#) }.count == (arrived ? 4 : 3))
  }

  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func aSecondMissionCannotBecomeActive() async throws {
    let box = try CLISandbox()
    try await box.importDemo()
    let db = box.databasePath
    for id in ["sig-101", "sig-102"] {
      _ = try await Self.run(box, ["missions", "accept", id, "--db", db], tag: "accept-\(id)")
    }
    let first = try await Self.run(box, ["missions", "start", "sig-101", "--db", db], tag: "s1")
    #expect(first.status == 0)
    let second = try await Self.run(box, ["missions", "start", "sig-102", "--db", db], tag: "s2")
    #expect(second.status == 1)
    #expect(second.err.contains("worker local already tracks mission sig-101"))
    #expect(try MissionDatabase(path: db).mission(id: "sig-102")?.state == .accepted)
    // The schema refuses it too, whoever writes.
    let raw = try MissionDatabase(path: db)
    #expect(throws: StoreError.self) {
      try raw.insert([
        Mission(
          id: "forced", coordinate: try Coordinate(latitude: 59.6, longitude: 17.7), state: .active)
      ])
    }
  }

  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func replayingTheSameTraceIntoFreshDatabasesIsByteIdentical() async throws {
    var outputs: [[String]] = []
    for round in 0..<2 {
      let box = try CLISandbox()
      let db = box.databasePath
      _ = try await Self.run(
        box, ["missions", "import", CLISandbox.demoMissions, "--db", db], tag: "import")
      let replay = try await Self.run(
        box, ["replay", CLISandbox.walkGPX, "--db", db, "--mission", "sig-101"], tag: "replay")
      #expect(replay.status == 0, "round \(round): \(replay.err)")
      var files = [replay.out]
      for (format, name) in [("geojson", "t.geojson"), ("gpx", "t.gpx"), ("jsonl", "t.jsonl")] {
        _ = try await Self.run(
          box, ["export", "sig-101", "--format", format, "-o", box.path(name), "--db", db],
          tag: "export-\(format)")
        files.append(box.read(name))
      }
      _ = try await Self.run(
        box, ["report", "sig-101", "-o", box.path("r.svg"), "--db", db], tag: "report")
      files.append(box.read("r.svg"))
      #expect(files.allSatisfy { !$0.isEmpty })
      outputs.append(files)
    }
    #expect(outputs[0] == outputs[1])
    // Replay's own transitions carry the trace's first fix time, so events never run back.
    let lines = CLISandbox.jsonLines(outputs[0][0])
    #expect(lines.first?["time"] as? String == "2026-05-04T10:00:00.000Z")
    let times = lines.compactMap { $0["time"] as? String }
    #expect(times == times.sorted())
  }

  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func replayingTheWalkAgainEntersNoFenceTwice() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let db = box.databasePath
    let arguments = ["replay", CLISandbox.walkGPX, "--db", db, "--mission", "sig-101"]
    let first = try await Self.run(box, arguments, tag: "first")
    let enters = CLISandbox.jsonLines(first.out).filter { $0["type"] as? String == "enter" }
    #expect(Set(enters.compactMap { $0["fence_id"] as? String }).count >= 2)
    let again = try await Self.run(box, arguments, tag: "again")
    #expect(again.status == 0)
    let more = CLISandbox.jsonLines(again.out).filter {
      ["enter", "exit", "dwell", "state"].contains($0["type"] as? String ?? "")
    }
    #expect(more.isEmpty, "\(more)")
    let stored = try MissionDatabase(path: db).eventLines(ofMission: "sig-101")
    #expect(stored.filter { $0.contains(#""type":"enter""#) }.count == enters.count)
  }
}
