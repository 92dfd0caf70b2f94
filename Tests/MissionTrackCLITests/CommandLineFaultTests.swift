import Foundation
import MissionStore
import ServiceTestSupport
import Testing

/// The built `missiontrack` binary under fault (issue 14: "The command line under fault",
/// "Messages"): full disks, closed pipes, signals, hostile `-o` and `--db` paths, standard
/// input. Each test runs the real process, so what it checks is what a user sees.
@Suite(.binaryBuilt)
struct CommandLineFaultTests {
  struct Run {
    var status: Int32
    var out: String
    var err: String
  }

  /// Runs `/bin/sh -c script` with `$0` the binary, `$1` the sandbox database, in the
  /// sandbox directory, with `input` on standard input.
  func shell(_ box: CLISandbox, _ script: String, input: String = "") throws -> Run {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", script, BuiltTool.path ?? "missiontrack", box.databasePath]
    process.currentDirectoryURL = box.directory
    let stdin = Pipe()
    let out = Pipe()
    let err = Pipe()
    process.standardInput = stdin
    process.standardOutput = out
    process.standardError = err
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
      err: String(decoding: errData, as: UTF8.self))
  }

  /// Runs the binary with `arguments` (`--db` is not added).
  func tool(_ box: CLISandbox, _ arguments: [String], input: String = "") throws -> Run {
    let quoted = arguments.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
    return try shell(box, "exec \"$0\" " + quoted.joined(separator: " "), input: input)
  }

  /// A private character device like `/dev/null` (major 1, minor 3) inside the sandbox, or
  /// nil when this process may not create one (not root). Tests that check a device is
  /// refused use it instead of `/dev/null` itself: run against the old code, which replaced
  /// whatever `-o` named, a test on the real `/dev/null` broke it for the whole machine.
  func privateNullDevice(_ box: CLISandbox) -> String? {
    let path = box.path("null-device")
    // glibc's makedev(1, 3) (a macro Swift cannot import): major << 8 | minor for small ones.
    return mknod(path, S_IFCHR | 0o666, dev_t(1 << 8 | 3)) == 0 ? path : nil
  }

  func imported() async throws -> CLISandbox {
    let box = try CLISandbox()
    try await box.importDemo()
    return box
  }

  // MARK: failed writes

  @Test func aFullStandardOutputExitsOneWithOneLine() async throws {
    let box = try await imported()
    let run = try shell(box, #"exec "$0" missions list --db "$1" >/dev/full"#)
    #expect(run.status == 1)
    #expect(
      run.err
        == "6 missions\nmissiontrack missions: cannot write to standard output: No space left on device\n"
    )
    let json = try shell(
      box, #"exec "$0" nearby --lat 59.6175 --lon 17.723 --json --db "$1" >/dev/full"#)
    #expect(json.status == 1)
    #expect(
      json.err.hasSuffix(
        "missiontrack nearby: cannot write to standard output: No space left on device\n"))
  }

  @Test func aFullStandardErrorExitsOneQuietly() async throws {
    let box = try await imported()
    let run = try shell(box, #"exec "$0" missions list --db "$1" 2>/dev/full"#)
    #expect(run.status == 1)
    #expect(run.out.contains("sig-101"))
  }

  @Test func aClosedPipeWithSIGPIPEIgnoredExitsOne() async throws {
    let box = try await imported()
    let script = #"""
      trap '' PIPE
      { sleep 0.5; "$0" missions list --db "$1"; echo "status $?" >&2; } | true
      """#
    let run = try shell(box, script)
    #expect(
      run.err.contains("missiontrack missions: cannot write to standard output: Broken pipe\n"))
    #expect(run.err.hasSuffix("status 1\n"))
    #expect(!run.err.contains("Fatal error"))
  }

  @Test func sigtermDuringAReplayKeepsEveryLineProduced() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let output = box.path("replay.out")
    let process = try BuiltTool.start(
      [
        "replay", CLISandbox.walkGPX, "--mission", "sig-101", "--speed", "1", "--db",
        box.databasePath,
      ], in: box.directory, tag: "replay")
    // Signalled once it has produced lines, not after a fixed 3 s that a loaded run may
    // spend starting it.
    let produced = Date().addingTimeInterval(60)
    while Date() < produced,
      !((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("\n")
    {
      try await Task.sleep(for: .milliseconds(50))
    }
    process.terminate()
    // It stops at once (the walk would take 17 minutes), dying of the signal or exiting; the
    // 60 s only guard against a hang.
    var waited = 0
    while process.isRunning && waited < 600 {
      try await Task.sleep(for: .milliseconds(100))
      waited += 1
    }
    let stopped = !process.isRunning
    if !stopped { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    #expect(stopped, "replay ignored SIGTERM")
    let text = try String(contentsOfFile: output, encoding: .utf8)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    // Whole lines only, the first ones already produced among them.
    #expect(text.hasSuffix("\n"))
    #expect(lines.dropLast().allSatisfy { $0.hasPrefix("{") && $0.hasSuffix("}") })
    let events = CLISandbox.jsonLines(text)
    #expect(events.contains { $0["type"] as? String == "state" && $0["to"] as? String == "active" })
    #expect(events.contains { $0["type"] as? String == "fix" })
  }

  /// A signal during a large `missions import` ends it at once with nothing stored, also
  /// while the rows are validated on every core (whose work once held back the handler that
  /// ends the process for many seconds). After 5 s of CPU time on a debug build the file is
  /// split and its rows are being validated.
  @Test(arguments: [SIGTERM, SIGINT])
  func aSignalDuringALargeImportEndsItAtOnce(signal: Int32) throws {
    let box = try CLISandbox()
    let csv = LargeMissionCSV(extraColumns: 10)
    let file = box.path("large.csv")
    #expect(FileManager.default.createFile(atPath: file, contents: Data(csv.bytes)))
    let process = try BuiltTool.start(
      ["missions", "import", file, "--db", box.databasePath], in: box.directory, tag: "import")
    let busy = ProcessCPUTime.wait(forMore: 5, of: process.processIdentifier)
    try #require(busy && process.isRunning, "the import ended before the signal")
    let start = Date()
    kill(process.processIdentifier, signal)
    while process.isRunning && Date().timeIntervalSince(start) < 30 { usleep(10_000) }
    let seconds = Date().timeIntervalSince(start)
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    #expect(seconds < 2, "ended \(seconds) s after the signal")
    #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
    let database = try MissionDatabase(path: box.databasePath)
    #expect(try database.missionCount() == 0)
  }

  // MARK: -o

  @Test func outputRefusesTheDatabaseEvenThroughASymlink() async throws {
    let box = try await imported()
    let before = try Data(contentsOf: URL(fileURLWithPath: box.databasePath))
    symlink(box.databasePath, box.path("link.gpx"))
    for target in [box.databasePath, box.path("link.gpx")] {
      let run = try tool(
        box, ["export", "sig-101", "--format", "gpx", "-o", target, "--db", box.databasePath])
      #expect(run.status == 1)
      #expect(run.err.contains("it is the database"))
    }
    #expect(try Data(contentsOf: URL(fileURLWithPath: box.databasePath)) == before)
    #expect(try tool(box, ["missions", "list", "--db", box.databasePath]).status == 0)
  }

  @Test func outputRefusesAnythingButARegularFile() async throws {
    let box = try await imported()
    mkfifo(box.path("fifo"), 0o644)
    var targets = [(box.path("fifo"), "a named pipe (FIFO)"), (box.directory.path, "a directory")]
    if let device = privateNullDevice(box) { targets.append((device, "a device")) }
    for (target, kind) in targets {
      let run = try tool(
        box, ["export", "sig-101", "--format", "gpx", "-o", target, "--db", box.databasePath])
      #expect(run.status == 1)
      #expect(
        run.err
          == "missiontrack export: refusing to write -o \(target): it is \(kind), not a regular file\n"
      )
    }
  }

  @Test func outputKeepsAnExistingFilesModeAndASymlink() async throws {
    let box = try await imported()
    let target = box.path("private.gpx")
    #expect(FileManager.default.createFile(atPath: target, contents: Data("old".utf8)))
    chmod(target, 0o600)
    symlink(target, box.path("via-link.gpx"))
    let run = try tool(
      box, ["export", "sig-101", "-o", box.path("via-link.gpx"), "--db", box.databasePath])
    #expect(run.status == 0)
    var info = stat()
    #expect(stat(target, &info) == 0 && info.st_mode & 0o7777 == 0o600)
    #expect(try String(contentsOfFile: target, encoding: .utf8).contains("<gpx"))
    #expect(
      (try? FileManager.default.destinationOfSymbolicLink(atPath: box.path("via-link.gpx")))
        == target)
    // No temporary file is left behind.
    let names = try FileManager.default.contentsOfDirectory(atPath: box.directory.path)
    #expect(!names.contains { $0.hasPrefix(".private.gpx.") })
  }

  @Test func outputDashIsStandardOutput() async throws {
    let box = try await imported()
    let run = try tool(
      box, ["export", "sig-101", "--format", "gpx", "-o", "-", "--db", box.databasePath])
    #expect(run.status == 0)
    #expect(run.out.hasPrefix("<?xml"))
    #expect(!FileManager.default.fileExists(atPath: box.path("-")))
  }

  // MARK: standard input, ids

  @Test func importReadsStandardInputWithSniffingOrAFormat() throws {
    let box = try CLISandbox()
    let csv = try tool(
      box, ["missions", "import", "-", "--db", box.databasePath],
      input: "id,lat,lon\na,1,2\n")
    #expect(csv.status == 0)
    #expect(csv.err == "imported 1 mission from standard input (csv): 1 new, 0 replaced\n")
    let geojson = try String(contentsOfFile: CLISandbox.demoMissions, encoding: .utf8)
    let sniffed = try tool(
      box, ["missions", "import", "-", "--db", box.databasePath], input: geojson)
    #expect(sniffed.status == 0)
    #expect(sniffed.err.contains("(geojson): 6 new"))
    let forced = try tool(
      box, ["missions", "import", "-", "--format", "json", "--db", box.databasePath],
      input: #"[{"id":"j","lat":3,"lon":4}]"#)
    #expect(forced.status == 0)
    #expect(try tool(box, ["missions", "list", "--db", box.databasePath]).err == "8 missions\n")
  }

  @Test func anIdStartingWithADashWorksAfterDoubleDash() throws {
    let box = try CLISandbox()
    let imported = try tool(
      box, ["missions", "import", "-", "--db", box.databasePath], input: "id,lat,lon\n-17,1,2\n")
    #expect(imported.status == 0)
    let show = try tool(box, ["missions", "show", "--json", "--db", box.databasePath, "--", "-17"])
    #expect(show.status == 0)
    #expect(show.out.hasPrefix(#"{"id":"-17","#))
    let accept = try tool(box, ["missions", "accept", "--db", box.databasePath, "--", "-17"])
    #expect(accept.status == 0)
  }

  @Test func nfdAndNfcIdsOnTheCommandLineFindOneMission() throws {
    let box = try CLISandbox()
    let imported = try tool(
      box, ["missions", "import", "-", "--db", box.databasePath],
      input: "id,lat,lon\ncafe\u{301},1,2\n")
    #expect(imported.status == 0)
    for spelling in ["caf\u{E9}", "cafe\u{301}"] {
      let show = try tool(box, ["missions", "show", spelling, "--json", "--db", box.databasePath])
      #expect(show.status == 0)
      let export = try tool(
        box, ["export", spelling, "--format", "jsonl", "--db", box.databasePath])
      #expect(export.status == 0)
    }
  }

  // MARK: terminal output

  @Test func controlCharactersInTitlesAreEscapedInTablesAndKeptInJSON() throws {
    let box = try CLISandbox()
    let title = "Clear\u{1B}[2J\u{1B}]0;owned\u{07}\nsecond line"
    let json =
      #"[{"id":"x","lat":59.6175,"lon":17.723,"title":"Clear\u001b[2J\u001b]0;owned\u0007\nsecond line","address":"a\rb"}]"#
    #expect(
      try tool(box, ["missions", "import", "-", "--db", box.databasePath], input: json).status == 0)
    for arguments in [
      ["missions", "list"], ["nearby", "--lat", "59.6175", "--lon", "17.723"],
      ["missions", "show", "x"],
    ] {
      let run = try tool(box, arguments + ["--db", box.databasePath])
      #expect(run.status == 0)
      #expect(!run.out.contains("\u{1B}") && !run.out.contains("\u{07}") && !run.out.contains("\r"))
      #expect(run.out.contains(#"Clear\x1B[2J\x1B]0;owned\x07\nsecond line"#))
    }
    let list = try tool(box, ["missions", "list", "--db", box.databasePath])
    #expect(list.out.split(separator: "\n").count == 2)
    let exact = try tool(box, ["missions", "list", "--json", "--db", box.databasePath])
    let decoded = CLISandbox.jsonLines(exact.out)
    #expect(decoded.first?["title"] as? String == title)
  }

  // MARK: --db and input paths

  @Test func badDatabasePathsSayWhatIsWrong() throws {
    let box = try CLISandbox()
    mkfifo(box.path("fifo"), 0o644)
    #expect(
      FileManager.default.createFile(
        atPath: box.path("junk.sqlite"), contents: Data(repeating: 7, count: 4096)))
    var cases = [
      (box.directory.path, "--db \(box.directory.path) is a directory, not a database file"),
      (box.path("fifo"), "--db \(box.path("fifo")) is a named pipe (FIFO), not a database file"),
      (
        box.path("junk.sqlite"),
        "\(box.path("junk.sqlite")) is not a MissionTrack database (not an SQLite file)"
      ),
    ]
    if let device = privateNullDevice(box) {
      cases.append((device, "--db \(device) is a device, not a database file"))
    }
    for (path, message) in cases {
      let run = try tool(box, ["missions", "list", "--db", path])
      #expect(run.status == 1)
      #expect(run.err == "missiontrack missions: \(message)\n")
    }
  }

  @Test func badInputFilesSayWhatIsWrongAndLeaveNoDatabase() throws {
    let box = try CLISandbox()
    for (path, message) in [
      (box.directory.path, "it is a directory, not a file"),
      ("/dev/null", "it is a device, not a file"),
    ] {
      let run = try tool(
        box, ["missions", "import", path, "--format", "csv", "--db", box.databasePath])
      #expect(run.status == 1)
      #expect(run.err.contains(message))
      #expect(run.err.split(separator: "\n").count == 1)
      #expect(!run.err.contains("Cocoa") && !run.err.contains("permission"))
    }
    let bad = try tool(
      box, ["missions", "import", "-", "--db", box.databasePath], input: "id,lat,lon\na,91,0\n")
    #expect(bad.status == 1)
    #expect(!FileManager.default.fileExists(atPath: box.databasePath))
  }

  @Test func aNamedPipeIsReadAsAMissionFile() throws {
    let box = try CLISandbox()
    mkfifo(box.path("jobs.csv"), 0o644)
    let run = try shell(
      box,
      #"printf 'id,lat,lon\na,1,2\n' > jobs.csv & exec "$0" missions import jobs.csv --db "$1""#)
    #expect(run.status == 0)
    #expect(run.err.contains("1 new"))
  }

  @Test func aDatabaseInAReadOnlyDirectoryCanStillBeRead() async throws {
    let box = try await imported()
    let folder = box.path("ro")
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    let database = folder + "/m.sqlite"
    try FileManager.default.copyItem(atPath: box.databasePath, toPath: database)
    chmod(database, 0o644)
    chmod(folder, 0o555)
    chmod(box.directory.path, 0o755)
    defer { chmod(folder, 0o755) }
    // As an unprivileged user (root ignores directory permissions).
    let asUser = geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : ""
    let run = try shell(box, "exec \(asUser)\"$0\" missions list --db ro/m.sqlite")
    #expect(run.status == 0, "\(run.err)")
    #expect(run.out.contains("sig-101"))
    #expect(run.err == "6 missions\n")
  }
}
