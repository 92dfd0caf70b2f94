import CommandLineSupport
import Foundation
import MissionProximity
import MissionStore
import MissionTracking
import ServiceTestSupport
import Testing
import TextRules

@testable import MissionTrackCLI

/// Workers as a user meets them (issue 25): `missiontrack workers`, `missions accept
/// --worker`, one tracked mission and one tracker per worker, two workers replayed at once
/// into one database, and hostile worker ids on every command that takes one.
@Suite struct WorkerCommandTests {
  /// Two missions 11 km apart and a walk into each: worker a's fixes every second from
  /// 10:00:00, 305 m out, 10 m a step (the first inside 50 m is fix 26, 45 m out); worker
  /// b's from 10:01:00, 203 m out, 7 m a step (fix 22, 49 m out).
  static let missions = "id,lat,lon\nma,59.0,18.0\nmb,59.1,18.1\n"
  static let arrivals = ["a": "2026-05-04T10:00:26.000Z", "b": "2026-05-04T10:01:22.000Z"]

  /// A GPX walk due north into `target`, one fix a second from `start` (seconds after
  /// 10:00:00), from `distance` metres out, `step` metres at a time, `count` fixes.
  static func walk(
    to target: Coordinate, from distance: Double, step: Double, count: Int, start: Int
  )
    throws -> String
  {
    var points = ""
    for index in 0..<count {
      let point = try target.destination(
        bearingDegrees: 180, distanceMeters: max(5, distance - step * Double(index)))
      let second = start + index
      let time = String(format: "2026-05-04T10:%02d:%02d.000Z", second / 60, second % 60)
      points += String(
        format: #"<trkpt lat="%.7f" lon="%.7f"><time>%@</time></trkpt>"#,
        point.latitude, point.longitude, time)
    }
    return #"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">"#
      + "<trk><trkseg>\(points)</trkseg></trk></gpx>"
  }

  /// A sandbox with missions `ma` and `mb`, workers `a` and `b`, and their walks
  /// (`a.gpx`, `b.gpx`).
  static func twoWorkers() async throws -> CLISandbox {
    let box = try CLISandbox()
    try missions.write(toFile: box.path("m.csv"), atomically: true, encoding: .utf8)
    try walk(
      to: try Coordinate(latitude: 59.0, longitude: 18.0), from: 305, step: 10, count: 32,
      start: 0
    ).write(toFile: box.path("a.gpx"), atomically: true, encoding: .utf8)
    try walk(
      to: try Coordinate(latitude: 59.1, longitude: 18.1), from: 203, step: 7, count: 28,
      start: 60
    ).write(toFile: box.path("b.gpx"), atomically: true, encoding: .utf8)
    for arguments in [
      ["missions", "import", box.path("m.csv")], ["workers", "add", "a"], ["workers", "add", "b"],
    ] {
      let result = await box.run(arguments)
      guard result.status == 0 else { throw CLIError.failure(result.err) }
    }
    return box
  }

  /// `replay` of worker `worker`'s walk into its mission, on database `db`, run in a
  /// sandbox: the trace path is relative, so the lines of two sandboxes compare byte for
  /// byte.
  static func replay(_ worker: String, db: String, speed: String? = nil) -> [String] {
    ["replay", "\(worker).gpx", "--worker", worker, "--mission", "m\(worker)", "--db", db]
      + (speed.map { ["--speed", $0] } ?? [])
  }

  /// Two `replay --worker` processes at once on one database, each walking into its own
  /// fence: two arrivals, each at its own fix time, each run printing only its worker's
  /// events, byte for byte what the same walk prints replayed alone, and the store's log of
  /// each worker is what its run printed.
  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func twoWorkersReplayedAtOnceArriveEachAtItsOwnFixTime() async throws {
    let box = try await Self.twoWorkers()
    let db = box.databasePath
    // Paced (128 s and 112 s of walking), so the two runs overlap however loaded the machine:
    // in the whole suite on 2 cores, a process took over 60 s to print its first fix.
    let a = try BuiltTool.start(
      Self.replay("a", db: db, speed: "0.25"), in: box.directory, tag: "a")
    let b = try BuiltTool.start(
      Self.replay("b", db: db, speed: "0.25"), in: box.directory, tag: "b")
    try await EngineProcessTests.waitFor(#""type":"fix""#, in: "a.out", of: box)
    try await EngineProcessTests.waitFor(#""type":"fix""#, in: "b.out", of: box)
    #expect(a.isRunning && b.isRunning, "both walks are under way at once")
    for process in [a, b] {
      while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
      #expect(process.terminationStatus == 0)
    }
    let stored = try MissionDatabase(path: db)
    for worker in ["a", "b"] {
      let printed = box.read("\(worker).out")
      let lines = CLISandbox.jsonLines(printed)
      let arrivals = lines.filter { $0["to"] as? String == "arrived" }
      #expect(arrivals.count == 1)
      #expect(arrivals.first?["time"] as? String == Self.arrivals[worker])
      #expect(lines.allSatisfy { $0["worker_id"] as? String == worker })
      #expect(try stored.mission(id: "m\(worker)")?.state == .arrived)
      #expect(try stored.mission(id: "m\(worker)")?.workerID == worker)
      // The same walk alone, into a fresh database, prints the same bytes.
      let alone = try await Self.twoWorkers()
      let solo = try await EngineProcessTests.run(
        alone, Self.replay(worker, db: alone.databasePath), tag: "solo")
      #expect(solo.status == 0, "\(solo.err)")
      #expect(solo.out == printed)
      // The store's log of the worker is what was printed.
      let logged = try stored.events(ofWorker: worker).map(\.jsonLine)
      #expect(logged == printed.split(separator: "\n").map(String.init))
    }
  }

  /// One tracker per worker: while worker a's replay runs, a second tracker of worker a is
  /// refused naming the holder, and worker b's replay runs beside it to its arrival.
  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func aSecondTrackerOfTheSameWorkerIsRefusedAnotherWorkersRunsBesideIt() async throws {
    let box = try await Self.twoWorkers()
    let db = box.databasePath
    // Paced to last 5 minutes (it is stopped below), so it still runs however loaded.
    let a = try BuiltTool.start(Self.replay("a", db: db, speed: "0.1"), in: box.directory, tag: "a")
    try await EngineProcessTests.waitFor(#""type":"fix""#, in: "a.out", of: box)
    let second = try await EngineProcessTests.run(box, Self.replay("a", db: db), tag: "again")
    #expect(second.status == 1)
    #expect(second.err.contains("worker a on database"))
    #expect(second.err.contains("pid \(a.processIdentifier) (missiontrack replay)"))
    #expect(second.err.split(separator: "\n").count == 1)
    #expect(second.out.isEmpty)
    let other = try await EngineProcessTests.run(box, Self.replay("b", db: db), tag: "b")
    #expect(other.status == 0, "\(other.err)")
    #expect(
      CLISandbox.jsonLines(other.out).first { $0["to"] as? String == "arrived" }?["time"]
        as? String == Self.arrivals["b"])
    #expect(a.isRunning, "worker a's run was under way all along")
    try await EngineProcessTests.stop(a)
    #expect(a.terminationReason == .exit && a.terminationStatus == 0)
  }

  /// `serve --worker a` feeds worker a only: starting worker b's mission opens nothing (b
  /// gets no fix), starting a's replays the trace into it to its arrival; the serve holds
  /// a's tracking lease, so a `replay --worker a` is refused naming it.
  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func serveFeedsOnlyItsWorker() async throws {
    let box = try await Self.twoWorkers()
    let db = box.databasePath
    for (mission, worker) in [("ma", "a"), ("mb", "b")] {
      #expect(await box.run(["missions", "accept", mission, "--worker", worker]).status == 0)
    }
    let serve = try ServeProcess(
      ["--worker", "a", "--replay", "a.gpx", "--db", db], in: box.directory)
    #expect(await box.run(["missions", "start", "mb"]).status == 0)
    let refused = try await EngineProcessTests.run(box, Self.replay("a", db: db), tag: "r")
    #expect(refused.status == 1)
    #expect(refused.err.contains("(missiontrack serve)"))
    #expect(await box.run(["missions", "start", "ma"]).status == 0)
    let stored = try MissionDatabase(path: db)
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline, try stored.mission(id: "ma")?.state != .arrived {
      try await Task.sleep(for: .milliseconds(50))
    }
    #expect(try stored.mission(id: "ma")?.state == .arrived)
    // The status describes the worker the source feeds: a's mission, not local's (none).
    let status = try RawHTTP.request(port: serve.port, "GET", "/v1/status")
    #expect(status.json?["active_mission"] as? String == "ma", "\(status.text)")
    let arrival = try stored.events(ofMission: "ma").first {
      $0.event.kind == .state(from: .active, to: .arrived)
    }
    #expect(arrival.map { UTCTime.format($0.time) } == Self.arrivals["a"])
    #expect(try stored.events(ofMission: "mb").allSatisfy { $0.type == "state" })
    #expect(try stored.track(ofMission: "mb").isEmpty)
    #expect(serve.stop().status == 0)
  }

  /// A second start for a worker that tracks a mission is refused naming the worker and
  /// the mission; another worker's start succeeds; the schema refuses a forced second
  /// tracked row of the same worker too.
  @Test(.enabled(if: BuiltTool.isBuilt, "needs the built missiontrack (swift build)"))
  func aSecondStartForTheSameWorkerIsRefusedAnotherWorkersSucceeds() async throws {
    let box = try await Self.twoWorkers()
    let db = box.databasePath
    try "id,lat,lon\nmc,59.2,18.2\n".write(
      toFile: box.path("c.csv"), atomically: true, encoding: .utf8)
    _ = await box.run(["missions", "import", box.path("c.csv")])
    for (mission, worker) in [("ma", "a"), ("mc", "a"), ("mb", "b")] {
      let accept = try await EngineProcessTests.run(
        box, ["missions", "accept", mission, "--worker", worker, "--db", db], tag: "acc-\(mission)")
      #expect(accept.status == 0, "\(accept.err)")
    }
    // Another worker cannot take over an accepted mission: the refusal names who holds it.
    let takeOver = try await EngineProcessTests.run(
      box, ["missions", "accept", "mb", "--worker", "a", "--db", db], tag: "acc-again")
    #expect(takeOver.status == 1)
    #expect(
      takeOver.err
        == "missiontrack missions: cannot accept mission mb for worker a: worker b accepted it\n")
    let first = try await EngineProcessTests.run(
      box, ["missions", "start", "ma", "--db", db], tag: "s1")
    #expect(first.status == 0)
    let second = try await EngineProcessTests.run(
      box, ["missions", "start", "mc", "--db", db], tag: "s2")
    #expect(second.status == 1)
    #expect(
      second.err
        == "missiontrack missions: cannot start mission mc: worker a already tracks mission ma\n")
    let other = try await EngineProcessTests.run(
      box, ["missions", "start", "mb", "--db", db], tag: "s3")
    #expect(other.status == 0, "\(other.err)")
    let stored = try MissionDatabase(path: db)
    #expect(try stored.mission(id: "mc")?.state == .accepted)
    #expect(try stored.trackedMissionIDs() == ["a": "ma", "b": "mb"])
    // Replaying for worker a another mission than the one it tracks is refused the same way.
    let replay = try await EngineProcessTests.run(
      box, ["replay", box.path("a.gpx"), "--worker", "a", "--mission", "mc", "--db", db], tag: "r")
    #expect(replay.status == 1)
    #expect(replay.err.contains("worker a already tracks mission ma"))
    // A worker with a tracked mission cannot be removed.
    let remove = await box.run(["workers", "remove", "a"])
    #expect(remove.status == 1)
    #expect(remove.err.contains("'a' tracks mission 'ma'"))
  }

  /// An unknown worker is a runtime error naming it, for `missions accept` and `replay`;
  /// nothing changes.
  @Test func anUnknownWorkerIsARuntimeErrorNamingIt() async throws {
    let box = try await Self.twoWorkers()
    let accept = await box.run(["missions", "accept", "ma", "--worker", "nobody"])
    #expect(accept.status == 1)
    #expect(accept.err == "missiontrack missions: unknown worker nobody\n")
    let replay = await box.run([
      "replay", box.path("a.gpx"), "--worker", "nobody", "--mission", "ma",
    ])
    #expect(replay.status == 1)
    #expect(replay.err.contains("unknown worker nobody"))
    #expect(try MissionDatabase(path: box.databasePath).mission(id: "ma")?.state == .open)
  }

  /// Hostile worker ids on every command that takes one: a usage error (64) in one line that
  /// shows control characters escaped and a 10 KB id cut short; nothing is stored.
  @Test(arguments: [
    "a\u{1B}[2Jb", "line\nbreak", "tab\tx", "  ", "", String(repeating: "w", count: 10_000),
  ])
  func hostileWorkerIdsAreUsageErrorsEverywhere(id: String) async throws {
    let box = try await Self.twoWorkers()
    let commands: [[String]] = [
      ["workers", "add", id], ["workers", "show", id], ["workers", "remove", id],
      ["workers", "add", "--", id],
      ["missions", "accept", "ma", "--worker", id],
      ["replay", box.path("a.gpx"), "--mission", "ma", "--worker", id],
      ["track", "--nmea", box.path("none.nmea"), "--worker", id],
      ["serve", "--listen", "127.0.0.1:0", "--worker", id],
    ]
    for arguments in commands {
      let result = await box.run(arguments)
      #expect(result.status == 64, "\(arguments.prefix(2)): \(result.err.prefix(200))")
      #expect(result.err.hasSuffix("\n") && result.err.dropLast().contains("\n") == false)
      #expect(!result.err.contains("\u{1B}") && !result.err.contains("\t"))
      #expect(result.err.utf8.count < 300)
      #expect(result.out.isEmpty)
    }
    let stored = try MissionDatabase(path: box.databasePath)
    #expect(try stored.workers().map(\.id) == ["a", "b", Worker.localID])
    #expect(try stored.mission(id: "ma")?.state == .open)
  }

  /// NFD and NFC spell one worker on the command line.
  @Test func nfdAndNFCNameOneWorker() async throws {
    let box = try await Self.twoWorkers()
    #expect(await box.run(["workers", "add", "cafe\u{301}", "--name", "Café"]).status == 0)
    let shown = await box.run(["workers", "show", "caf\u{E9}", "--json"])
    #expect(shown.status == 0)
    #expect(CLISandbox.jsonLines(shown.out).first?["name"] as? String == "Café")
    #expect(await box.run(["missions", "accept", "ma", "--worker", "caf\u{E9}"]).status == 0)
    let listed = await box.run(["missions", "list", "--json"])
    let ma = CLISandbox.jsonLines(listed.out).first { $0["id"] as? String == "ma" }
    #expect(ma?["worker_id"] as? String == "caf\u{E9}")
    #expect(await box.run(["workers", "add", "caf\u{E9}"]).err.contains("replaced"))
    #expect(try MissionDatabase(path: box.databasePath).workers().count == 4)
  }

  /// `workers add|list|show|remove`: devices with their secret files, the text table and
  /// JSON lines (secrets never printed), a device another worker holds, `local` kept.
  @Test func workersAreAddedListedShownAndRemoved() async throws {
    let box = try CLISandbox()
    try "s3cret\nignored\n".write(toFile: box.path("secret"), atomically: true, encoding: .utf8)
    let add = await box.run([
      "workers", "add", "bo", "--name", "Bo Ek", "--device", "owntracks:bo/phone",
      "--secret-file", box.path("secret"), "--device", "osmand:123",
    ])
    #expect(add.status == 0, "\(add.err)")
    let stored = try MissionDatabase(path: box.databasePath)
    #expect(
      try stored.worker("bo")
        == Worker(
          id: "bo", name: "Bo Ek",
          devices: [
            WorkerDevice(ingestProtocol: .osmand, deviceID: "123"),
            WorkerDevice(ingestProtocol: .owntracks, deviceID: "bo/phone", secret: "s3cret"),
          ]))
    let list = await box.run(["workers", "list"])
    #expect(
      list.out.split(separator: "\n").map(String.init) == [
        "ID     NAME   TRACKED  DEVICES",
        "bo     Bo Ek  -        osmand:123 owntracks:bo/phone",
        "local  -      -        -",
      ])
    let json = await box.run(["workers", "list", "--json"])
    #expect(
      json.out.split(separator: "\n").first
        == #"{"id":"bo","name":"Bo Ek","tracked_mission":null,"devices":[{"protocol":"osmand","device_id":"123","has_secret":false},{"protocol":"owntracks","device_id":"bo/phone","has_secret":true}]}"#
    )
    #expect(!json.out.contains("s3cret"))
    let taken = await box.run(["workers", "add", "cy", "--device", "osmand:123"])
    #expect(taken.status == 1)
    #expect(taken.err.contains("device osmand:123 is registered to worker 'bo'"))
    for bad in [
      ["--device", "carrier-pigeon:1"], ["--device", "osmand"], ["--secret-file", "x"],
    ] {
      #expect(await box.run(["workers", "add", "cy"] + bad).status == 64)
    }
    #expect(await box.run(["workers", "show", "cy"]).status == 1)
    #expect(await box.run(["workers", "remove", "local"]).status == 1)
    let removed = await box.run(["workers", "remove", "bo"])
    #expect(removed.status == 0)
    #expect(await box.run(["workers", "remove", "bo"]).err.contains("no worker with id 'bo'"))
    #expect(try stored.device(.osmand, id: "123") == nil)
  }
}
