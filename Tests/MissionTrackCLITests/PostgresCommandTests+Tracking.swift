import Foundation
import PostgresTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `replay` and `track` of the built `missiontrack` with `--db postgresql://…` on a private
/// cluster: the same output, exit status and stored result as on SQLite for the same
/// inputs, and the tracking lease held by one process at a time and freed when its holder
/// dies.
extension PostgresCommandTests {
  static let scenario = CLISandbox.packageRoot.appendingPathComponent("Traces/scenarios").path

  /// The demo walk as NMEA with a broken sentence after its first 200 lines, and a mission
  /// whose deadline has passed.
  static func files() throws -> [String: String] {
    let nmea = try Data(contentsOf: URL(fileURLWithPath: CLISandbox.walkNMEA))
    let lines = String(decoding: nmea, as: UTF8.self).split(whereSeparator: \.isNewline)
    try #require(lines.count > 1000)
    let broken = "$GPRMC,100100.00,A,59xx.4279,N,01744.1119,E,0.00,0.0,040526,,,A*00"
    return [
      "broken.nmea": (lines[..<200] + [Substring(broken)] + lines[200...]).joined(separator: "\n")
        + "\n",
      "late.csv": "id,lat,lon,title,radius_m,deadline\n"
        + "late-1,59.6175,17.7230,Too late,30,2020-01-01T00:00:00Z\n",
    ]
  }

  @Test func replaysPrintAndStoreTheSameOnPostgreSQLAsOnSQLite() throws {
    let walk = CLISandbox.walkGPX
    let commands: [[String]] = [
      // Nothing to track; an unknown mission.
      ["replay", walk], ["replay", walk, "--mission", "no-such"],
      // The walk to sig-101: accepted and started at the first fix; it arrives.
      ["replay", walk, "--mission", "sig-101", "--expect-arrival", "--within", "30m"],
      // The same walk as NMEA: resumed, every fix a duplicate, no fence entered twice.
      ["replay", CLISandbox.walkNMEA, "--expect-arrival"],
      // (Not a second mission while sig-101 is tracked: the engine resumes sig-101 from the
      // trace before the refusal, so how much of it is read first depends on timing.)
      ["missions", "submit", "sig-101", "--at", "2026-05-04T11:00:00Z"],
      // Bad input: a broken sentence stops a strict replay early (exit 1, the mission stays
      // active); without --strict it is skipped and counted.
      ["replay", "broken.nmea", "--mission", "sig-102", "--strict"],
      ["replay", "broken.nmea", "--expect-arrival", "--within", "1m"],
      ["missions", "cancel", "sig-102", "--at", "2026-05-04T11:05:00Z"],
      ["replay", walk, "--mission", "sig-102"],
      // Another worker, a faulty trace (seeded noise, dropouts, duplicates, reordering).
      ["workers", "add", "bo", "--name", "Bo"],
      [
        "replay", Self.scenario + "/walk-toward.gpx", "--worker", "bo", "--mission", "sig-103",
        "--noise-m", "4", "--dropout", "0.2", "--duplicate", "0.1", "--reorder", "0.1",
        "--seed", "9",
      ],
      // A mission of bo's is not local's to track.
      ["replay", walk, "--mission", "sig-103"],
      ["replay", Self.scenario + "/two-fences.gpx", "--worker", "bo", "--no-other-fences"],
      // A mission past its deadline expires before it can be accepted.
      ["missions", "import", "late.csv"],
      ["replay", walk, "--mission", "late-1"],
      ["replay", walk, "--mission", "sig-104", "--start-at", "2026-05-04T09:00:00Z"],
      // Usage errors come before the store.
      ["replay", walk, "--speed", "0"], ["replay", "/nonexistent.gpx", "--mission", "sig-104"],
    ]
    let readBack: [[String]] =
      Self.missionReadBack + [
        // (not late-1's own: its expiry is stamped with the wall clock)
        ["missions", "show", "--json", "sig-103"],
        ["missions", "list", "--json", "--state", "expired"], ["workers", "list", "--json"],
        ["workers", "show", "--json", "bo"],
      ]
    let runs = try Self.expectSameSequence(
      commands + readBack, files: try Self.files())
    // The sequence did what it means to (on both stores, as they agree).
    #expect(
      runs.prefix(commands.count).map(\.status) == [
        1, 1, 0, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0, 64, 1,
      ])
    #expect(runs[0].err.contains("worker local has no active mission"))
    #expect(runs[2].out.contains(#""from":"active","to":"arrived""#))
    #expect(runs[2].out.split(separator: "\n").count > 100)
    #expect(runs[3].err.contains("resuming mission sig-101 (arrived)"))
    #expect(runs[5].err.contains("stopped early"))
    #expect(runs[6].err.contains("resuming mission sig-102 (active)"))
    #expect(runs[10].out.contains(#""worker_id":"bo""#))
    #expect(runs[11].err.contains("mission sig-103 belongs to worker bo"))
    #expect(runs[14].err.contains("cannot start mission late-1: it is expired"))
    #expect(runs[15].out.hasPrefix(#"{"type":"state","time":"2026-05-04T09:00:00.000Z""#))
  }

  /// `track` stamps its own transitions and its source's events with the wall clock: those
  /// times are the only difference allowed between the two stores.
  static func withoutWallClock(_ run: Run) -> Run {
    var run = run
    let today = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
    let pattern = try? NSRegularExpression(pattern: today + #"T[0-9:.]+Z"#)
    for keyPath in [\Run.out, \.err] {
      let text = run[keyPath: keyPath]
      run[keyPath: keyPath] =
        pattern?.stringByReplacingMatches(
          in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "NOW") ?? text
    }
    return run
  }

  @Test func trackingFromAnNMEAFilePrintsAndStoresTheSameOnPostgreSQLAsOnSQLite() throws {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    let commands: [[String]] = [
      ["track", "--nmea", CLISandbox.walkNMEA, "--mission", "sig-101"],
      ["track", "--nmea", CLISandbox.walkNMEA],
      ["missions", "show", "--json", "sig-101"], ["missions", "list"],
    ]
    for store in [box.databasePath, uri] {
      let imported = try Self.run(
        box, ["missions", "import", CLISandbox.demoMissions, "--db", store])
      #expect(imported.status == 0, "\(imported)")
    }
    for command in commands {
      let sqlite = Self.withoutWallClock(
        try Self.run(box, command + ["--db", box.databasePath]))
      let postgres = Self.withoutWallClock(
        try Self.run(box, command + ["--db", uri]))
      Self.expectSame(postgres, sqlite, command)
      if command == commands[0] {
        #expect(sqlite.status == 0 && sqlite.out.contains(#""from":"active","to":"arrived""#))
        #expect(sqlite.out.contains(#""status":"connected""#))
      }
    }
  }

  @Test func sigtermStopsALiveTrackWithEveryPrintedFixStored() async throws {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    let imported = try Self.run(
      box, ["missions", "import", CLISandbox.demoMissions, "--db", uri])
    #expect(imported.status == 0)
    let fifo = box.path("gps.fifo")
    #expect(mkfifo(fifo, 0o600) == 0)
    let process = try BuiltTool.start(
      ["track", "--nmea", fifo, "--db", uri, "--mission", "sig-101"], in: box.directory,
      tag: "track")
    defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
    // Opening for writing waits until the tool has opened the pipe for reading; the pipe
    // stays open, so the source never ends by itself.
    let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
    defer { try? writer.close() }
    let nmea = try Data(contentsOf: URL(fileURLWithPath: CLISandbox.walkNMEA))
    writer.write(nmea.prefix(nmea.count / 3))
    try await EngineProcessTests.waitFor(#""type":"fix""#, in: "track.out", of: box)
    try await EngineProcessTests.stop(process)
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    let printed = box.read("track.out")
    #expect(printed.hasSuffix(#""status":"ended","detail":"stopped by SIGTERM"}"# + "\n"))
    let fixes = printed.split(separator: "\n").filter { $0.contains(#""type":"fix""#) }
    let show = try Self.run(
      box, ["missions", "show", "--json", "sig-101", "--db", uri])
    #expect(show.out.contains(#""state":"active""#), "\(show)")
    #expect(show.out.contains("\"track_fixes\":\(fixes.count)"), "\(show)")
  }

  @Test func aSecondTrackerIsRefusedAndAKilledTrackersLeaseIsFreeAtOnce() async throws {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    for command in [
      ["missions", "import", CLISandbox.demoMissions], ["workers", "add", "bo"],
      ["missions", "accept", "sig-102", "--worker", "bo"],
    ] {
      #expect(try Self.run(box, command + ["--db", uri]).status == 0)
    }
    let walk = CLISandbox.walkGPX
    let first = try BuiltTool.start(
      ["replay", walk, "--db", uri, "--mission", "sig-101", "--speed", "4"], in: box.directory,
      tag: "first")
    defer { if first.isRunning { kill(first.processIdentifier, SIGKILL) } }
    try await EngineProcessTests.waitFor(#""type":"fix""#, in: "first.out", of: box)
    // Worker local is taken, by replay or by track, in one line naming the holder and its
    // host, and the database by its name (a URI's password never shows).
    let holder =
      "pid \(first.processIdentifier) (missiontrack replay) on \(ProcessInfo.processInfo.hostName)"
    let withPassword = uri.replacingOccurrences(of: "postgres@", with: "postgres:hunter2@")
    let database = try #require(URL(string: uri)).lastPathComponent
    for (command, verb) in [
      (["replay", walk, "--db", uri], "replay"),
      (["track", "--nmea", CLISandbox.walkNMEA, "--db", withPassword], "track"),
    ] {
      let second = try Self.run(box, command)
      #expect(second.status == 1)
      #expect(
        second.err == "missiontrack \(verb): worker local on database \(database) is already "
          + "being tracked by \(holder); only one process may track a worker at a time\n")
      #expect(second.out.isEmpty)
    }
    // Another worker's tracker runs beside it.
    let beside = try Self.run(
      box, ["replay", walk, "--worker", "bo", "--mission", "sig-102", "--db", uri])
    #expect(beside.status == 0, "\(beside)")
    #expect(first.isRunning)
    // Killed, the holder leaves nothing behind: the next tracker takes the lease at once
    // and resumes the mission.
    kill(first.processIdentifier, SIGKILL)
    first.waitUntilExit()
    let third = try Self.run(box, ["replay", walk, "--db", uri])
    #expect(third.status == 0, "\(third)")
    #expect(third.err.contains("replay: resuming mission sig-101"))
  }
}
