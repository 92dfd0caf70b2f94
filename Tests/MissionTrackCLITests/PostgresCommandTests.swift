import CommandLineSupport
import Foundation
import MissionProximity
import PostgresTestSupport
import ServiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The built `missiontrack` binary with `--db postgresql://…` on a private cluster: the
/// commands that run on PostgreSQL answer byte for byte what they answer on SQLite for the
/// same missions, and a URI that cannot be used fails in one line (`replay` and `track`:
/// PostgresCommandTests+Tracking.swift).
@Suite(.binaryBuilt, .postgresInstalled)
struct PostgresCommandTests {
  /// One run of the binary.
  struct Run: Equatable, CustomStringConvertible {
    var status: Int32
    var out: String
    var err: String

    var description: String { "exit \(status)\nstdout:\n\(out)stderr:\n\(err)" }
  }

  /// Runs the binary in `box`'s directory with `arguments`; fails when it runs longer than
  /// `limit` seconds (then it is killed).
  static func run(_ box: CLISandbox, _ arguments: [String], limit: Double = 60) throws -> Run {
    let tag = "run-\(UUID().uuidString.prefix(8))"
    let process = try BuiltTool.start(arguments, in: box.directory, tag: tag)
    let deadline = Date().addingTimeInterval(limit)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning {
      // What the process was doing (its state, and where it waited) tells a hang of the
      // tool from an exit that was not noticed (state Z): one run of `webhooks bogus` was
      // once reported running after 60 s.
      let proc = "/proc/\(process.processIdentifier)/"
      let stat = (try? String(contentsOfFile: proc + "stat", encoding: .utf8)) ?? "?"
      let state = stat.split(separator: ")").last?.split(separator: " ").first ?? "?"
      let wchan = (try? String(contentsOfFile: proc + "wchan", encoding: .utf8)) ?? "?"
      process.terminate()
      process.waitUntilExit()
      throw CLIError.failure(
        "missiontrack \(arguments.joined(separator: " ")) ran over \(limit) s "
          + "(state \(state), waiting in \(wchan); stderr: \(box.read(tag + ".err")))")
    }
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, out: box.read(tag + ".out"), err: box.read(tag + ".err"))
  }

  /// Missions made to tell stores apart: ties at one point and ids whose byte order differs
  /// from a dictionary's (`B` before `a`, accents, `-` and `_`); every state; deadlines in
  /// the past (shown as expired by the commands that only read) and in the future; missions
  /// across the antimeridian and near a pole.
  static func missionsCSV() -> String {
    // The same missions on every run.
    var generator = SplitMix64(seed: 28)
    var lines = ["id,lat,lon,title,reward,currency,address,radius_m,deadline,state"]
    let states = ["open", "open", "open", "accepted", "submitted", "completed", "cancelled"]
    let ids = ["B-1", "a-1", "a_1", "A-1", "é-1", "e-1", "Z", "z", "10", "9"]
    var point = (lat: 59.6175, lon: 17.7230)
    for index in 0..<160 {
      let id = index < ids.count ? ids[index] : "m-\(index)"
      // Every fifth shares the point of the one before it (a tie at any query point).
      if index % 5 != 4 {
        point = (
          59.6175 + Double(generator.next() % 20_000) / 1e6 - 0.01,
          17.7230 + Double(generator.next() % 40_000) / 1e6 - 0.02
        )
      }
      let (lat, lon) = point
      let deadline =
        switch index % 9 {
        case 0: "2020-01-01T00:00:00Z"
        case 1: "2099-06-01T12:00:00.25Z"
        default: ""
        }
      let state = states[index % states.count]
      lines.append(
        "\(id),\(lat),\(lon),Mission \(index),\(index * 10),SEK,\"Street \(index), Sigtuna\","
          + "\(20 + index % 50),\(deadline),\(state)")
    }
    lines.append("far-east,-16.5,179.9999,Across the line,5,FJD,Suva,50,,open")
    lines.append("far-west,-16.5,-179.9999,Across the line,5,FJD,Suva,50,,open")
    lines.append("pole,89.99,45,Near the pole,1,NOK,Svalbard,50,,open")
    // Two at the query point itself: distance 0, a tie.
    lines.append("at-1,59.6175,17.723,At the point,1,SEK,Here,50,,open")
    lines.append("at-0,59.6175,17.723,At the point,1,SEK,Here,50,,open")
    return lines.joined(separator: "\n") + "\n"
  }

  /// The commands whose output must not depend on the store.
  static let readCommands: [[String]] = {
    var commands: [[String]] = [
      ["missions", "list"], ["missions", "list", "--json"],
      ["missions", "list", "--state", "open"], ["missions", "list", "--state", "expired"],
      ["missions", "list", "--state", "accepted", "--json"],
      ["missions", "list", "--state", "arrived"],
    ]
    for id in ["sig-101", "B-1", "a-1", "é-1", "m-18", "m-63", "far-west", "no-such"] {
      commands.append(["missions", "show", id])
      commands.append(["missions", "show", "--json", id])
    }
    // An id typed in NFD finds the NFC one.
    commands.append(["missions", "show", "e\u{301}-1"])
    let sigtuna = ["--lat", "59.6175", "--lon", "17.7230"]
    let queries: [[String]] = [
      [], ["--radius", "300"], ["--radius", "0"], ["--k", "3"], ["--k", "7", "--radius", "600"],
      ["--k", "0"], ["--k", "1000"], ["--all"], ["--all", "--k", "12"],
      ["--state", "expired"], ["--state", "expired", "--k", "4"], ["--state", "completed"],
      ["--radius", "2500", "--json"], ["--k", "25", "--json", "--all"],
      ["--radius", "20015115"],
    ]
    for query in queries { commands.append(["nearby"] + sigtuna + query) }
    // A point that is itself a mission's (distance 0, ties) and points where none is near.
    commands.append(["nearby", "--lat", "59.6175", "--lon", "17.723", "--radius", "0", "--all"])
    commands.append(["nearby", "--lat", "0", "--lon", "0", "--radius", "100000"])
    commands.append(["nearby", "--lat", "-33.9", "--lon", "18.4", "--k", "2"])
    commands.append(["nearby", "--lat", "-16.5", "--lon", "180", "--radius", "50", "--json"])
    commands.append(["nearby", "--lat", "90", "--lon", "0", "--radius", "2000", "--all"])
    return commands
  }()

  /// A fresh database with PostGIS whose default collation is a language's (ICU English),
  /// as a production database's usually is: ordering by such a collation puts `a-1` before
  /// `B-1`, where SQLite (and the commands' contract) orders by code point.
  static func englishCollatedDatabase() throws -> String {
    let cluster = try PostgresTestCluster.shared.get()
    let name = "cli_english_\(UUID().uuidString.prefix(8).lowercased())"
    try cluster.sql(
      "CREATE DATABASE \(name) TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US'",
      database: "postgres")
    try cluster.sql("CREATE EXTENSION postgis", database: name)
    return cluster.uri(database: name)
  }

  @Test func everyReadCommandPrintsTheSameOnPostgreSQLAsOnSQLite() throws {
    let box = try CLISandbox()
    let uri = try Self.englishCollatedDatabase()
    let csv = box.path("missions.csv")
    try Data(Self.missionsCSV().utf8).write(to: URL(fileURLWithPath: csv))
    for store in [box.databasePath, uri] {
      for file in [CLISandbox.demoMissions, csv] {
        let imported = try Self.run(box, ["missions", "import", file, "--db", store])
        #expect(imported.status == 0, "\(imported)")
      }
    }
    var answered = 0
    for command in Self.readCommands {
      let sqlite = try Self.run(box, command + ["--db", box.databasePath])
      let postgres = try Self.run(box, command + ["--db", uri])
      Self.expectSame(postgres, sqlite, command)
      if sqlite.status == 0 && !sqlite.out.isEmpty { answered += 1 }
    }
    // Radii exactly at missions' distances (the boundary is inclusive), as SQLite
    // computed them.
    let sigtuna = ["nearby", "--lat", "59.6175", "--lon", "17.7230", "--all"]
    let ranked = try Self.run(box, sigtuna + ["--k", "40", "--json", "--db", box.databasePath])
    // The distances as printed (Foundation's JSON reader may not round-trip them).
    let distances = ranked.out.split(separator: "\n").compactMap {
      $0.split(separator: "\"distance_m\":").last?.split(separator: ",").first.map(String.init)
    }
    #expect(distances.count == 40)
    for distance in distances.enumerated().filter({ $0.offset % 4 == 3 }).map(\.element) {
      let command = sigtuna + ["--radius", distance, "--json"]
      let sqlite = try Self.run(box, command + ["--db", box.databasePath])
      #expect(sqlite.out.contains("\"distance_m\":\(distance),"))
      Self.expectSame(try Self.run(box, command + ["--db", uri]), sqlite, command)
    }
    // Most commands find something: equal outputs are not two empty ones.
    #expect(answered > Self.readCommands.count * 3 / 4)
    // Replacing gives the same counts, and the stores still agree.
    let replaced = try [box.databasePath, uri].map { store in
      try Self.run(box, ["missions", "import", csv, "--replace", "--db", store])
    }
    #expect(replaced[0].status == 0 && replaced[0].err.contains("0 new, 165 replaced"))
    #expect(replaced[1] == replaced[0])
    for command in [
      ["missions", "list", "--json"], ["nearby", "--lat", "59.6175", "--lon", "17.723", "--all"],
    ] {
      let sqlite = try Self.run(box, command + ["--db", box.databasePath])
      Self.expectSame(try Self.run(box, command + ["--db", uri]), sqlite, command)
    }
  }

  /// Expects equal runs (a mission imported past `open` without a worker is `local`'s on
  /// both stores, DESIGN §7).
  static func expectSame(_ postgres: Run, _ sqlite: Run, _ command: [String]) {
    #expect(postgres == sqlite, "\(command.joined(separator: " "))")
  }

  /// Runs `commands` in order on a fresh SQLite file and on a fresh PostgreSQL database,
  /// both holding the demo missions (and `files` written into the sandbox), and expects
  /// byte-identical runs, command by command.
  /// - Returns: The SQLite runs, for checks that the sequence did what it means to.
  static func expectSameSequence(_ commands: [[String]], files: [String: String] = [:]) throws
    -> [Run]
  {
    let box = try CLISandbox()
    for (name, text) in files {
      try Data(text.utf8).write(to: URL(fileURLWithPath: box.path(name)))
    }
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    for store in [box.databasePath, uri] {
      let imported = try run(box, ["missions", "import", CLISandbox.demoMissions, "--db", store])
      #expect(imported.status == 0, "\(imported)")
    }
    return try commands.map { command in
      let sqlite = try run(box, command + ["--db", box.databasePath])
      let postgres = try run(box, command + ["--db", uri])
      #expect(postgres == sqlite, "\(command.joined(separator: " "))")
      return sqlite
    }
  }

  /// The state of the missions after `commands`, as the read commands print it.
  static let missionReadBack: [[String]] = [
    ["missions", "list"], ["missions", "list", "--json"],
    ["missions", "show", "--json", "sig-101"], ["missions", "show", "sig-102"],
    ["missions", "show", "--json", "sig-104"], ["missions", "show", "--json", "sig-105"],
  ]

  @Test func lifecycleActionsAndTheirRefusalsPrintTheSameOnPostgreSQLAsOnSQLite() throws {
    func at(_ minute: Int) -> [String] { ["--at", "2026-05-01T09:\(minute + 10):00Z"] }
    let commands: [[String]] = [
      ["missions", "accept", "sig-101"] + at(0),
      // Already done: nothing changes.
      ["missions", "accept", "sig-101"] + at(1),
      // A take-over of an accepted mission.
      ["missions", "accept", "sig-101", "--worker", "bo"] + at(2),
      // An unknown worker.
      ["missions", "accept", "sig-102", "--worker", "ghost"] + at(3),
      ["missions", "accept", "sig-102", "--worker", "local"] + at(4),
      ["missions", "start", "sig-101"] + at(5),
      // A second start of one worker.
      ["missions", "start", "sig-102"] + at(6),
      ["missions", "start", "sig-101"] + at(7),
      // Illegal transitions and an unknown mission.
      ["missions", "complete", "sig-103"] + at(8),
      ["missions", "start", "sig-104"] + at(9),
      ["missions", "start", "no-such"] + at(10),
      ["missions", "submit", "sig-101"] + at(11),
      ["missions", "complete", "sig-101"] + at(12),
      ["missions", "start", "sig-102"] + at(13),
      ["missions", "cancel", "sig-102"] + at(14),
      ["missions", "cancel", "sig-104"] + at(15),
      ["missions", "cancel", "sig-104"] + at(16),
      ["missions", "expire", "sig-105"] + at(17),
      ["missions", "accept", "sig-105"] + at(18),
    ]
    let runs = try Self.expectSameSequence(commands + Self.missionReadBack)
    // The sequence did what it means to (on both stores, as they agree).
    let statuses = runs.prefix(commands.count).map(\.status)
    #expect(statuses == [0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1])
    #expect(runs[2].err.contains("cannot accept mission sig-101 for worker bo: worker local"))
    #expect(runs[3].err.contains("unknown worker ghost"))
    #expect(
      runs[6].err.contains(
        "cannot start mission sig-102: worker local already tracks mission sig-101"))
    #expect(runs[10].err.contains("no mission with id 'no-such'"))
    #expect(runs[commands.count + 2].out.contains("\"state\":\"completed\""))
  }

  @Test func workersCommandsAndTheirRefusalsPrintTheSameOnPostgreSQLAsOnSQLite() throws {
    let at = ["--at", "2026-05-01T09:00:00Z"]
    let commands: [[String]] = [
      [
        "workers", "add", "bo", "--name", "Bo Ek", "--device", "owntracks:bo/phone",
        "--secret-file", "bo.secret", "--device", "osmand:4711",
      ],
      ["workers", "add", "al", "--device", "overland:al-phone"],
      // A taken device, a device listed twice.
      ["workers", "add", "cy", "--device", "owntracks:bo/phone"],
      ["workers", "add", "cy", "--device", "osmand:9", "--device", "osmand:9"],
      ["workers", "add", "cy", "--name", "Cy"],
      ["workers", "list"], ["workers", "list", "--json"],
      ["workers", "show", "bo"], ["workers", "show", "--json", "bo"],
      // An unknown worker.
      ["workers", "show", "ghost"],
      ["missions", "accept", "sig-101", "--worker", "bo"] + at,
      // A take-over of an accepted mission.
      ["missions", "accept", "sig-101", "--worker", "al"] + at,
      ["missions", "accept", "sig-102", "--worker", "bo"] + at,
      ["missions", "accept", "sig-103", "--worker", "al"] + at,
      ["missions", "accept", "sig-104", "--worker", "ghost"] + at,
      ["missions", "start", "sig-101"] + at,
      // A second start of one worker; another worker's start.
      ["missions", "start", "sig-102"] + at,
      ["missions", "start", "sig-103"] + at,
      ["workers", "list"], ["workers", "list", "--json"], ["workers", "show", "--json", "al"],
      // Removal of a worker with a tracked mission, of `local`, of an unknown worker.
      ["workers", "remove", "bo"], ["workers", "remove", "local"],
      ["workers", "remove", "ghost"],
      ["workers", "remove", "cy"], ["workers", "remove", "cy"],
      // A worker that accepted missions is removed; its missions keep its id.
      ["missions", "submit", "sig-103"] + at, ["workers", "remove", "al"],
      ["missions", "show", "sig-103"], ["missions", "accept", "sig-105", "--worker", "al"] + at,
      // Replacing a worker drops its devices; the freed device can be registered again.
      ["workers", "add", "bo", "--name", "Bo"],
      ["workers", "add", "al", "--device", "owntracks:bo/phone"],
      // A worker id in NFD names the NFC one.
      ["workers", "add", "\u{e9}va"], ["workers", "show", "--json", "e\u{301}va"],
      ["workers", "list", "--json"],
    ]
    let runs = try Self.expectSameSequence(
      commands + Self.missionReadBack, files: ["bo.secret": "s3cret\n"])
    let statuses = runs.prefix(commands.count).map(\.status)
    #expect(
      statuses == [
        0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0,
        1, 0, 0, 0, 0, 0,
      ])
    #expect(runs[2].err.contains("device owntracks:bo/phone is registered to worker 'bo'"))
    #expect(runs[3].err.contains("device osmand:9 is listed twice"))
    #expect(runs[11].err.contains("cannot accept mission sig-101 for worker al: worker bo"))
    #expect(
      runs[16].err.contains(
        "cannot start mission sig-102: worker bo already tracks mission sig-101"))
    #expect(runs[21].err.contains("worker 'bo' tracks mission 'sig-101'"))
    #expect(runs[19].out.contains("\"tracked_mission\":\"sig-103\""))
    #expect(runs[27].err.contains("worker al removed") && runs[28].out.contains("worker     al"))
    #expect(runs[29].err.contains("unknown worker al"))
    #expect(!runs.contains { $0.out.contains("s3cret") })
  }

  @Test func aDuplicateImportIsRefusedWithItsLineAndStoresNothing() throws {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    #expect(
      try Self.run(box, ["missions", "import", CLISandbox.demoMissions, "--db", uri]).status == 0)
    let csv = box.path("again.csv")
    try Data("id,lat,lon\nnew-1,59.6,17.7\nsig-103,59.6,17.7\n".utf8).write(
      to: URL(fileURLWithPath: csv))
    let again = try Self.run(box, ["missions", "import", csv, "--db", uri])
    #expect(again.status == 1)
    #expect(again.err.hasPrefix("missiontrack missions: again.csv:3: field 'id' = 'sig-103'"))
    #expect(again.err.split(separator: "\n").count == 1)
    let list = try Self.run(box, ["missions", "list", "--db", uri])
    #expect(list.err == "6 missions\n")
  }

  @Test func aURIThatCannotBeUsedFailsInOneLineWithoutThePassword() throws {
    let box = try CLISandbox()
    let cluster = try PostgresTestCluster.shared.get()
    let closedPort = try RawHTTP.freeLoopbackPort()
    let base = try #require(URL(string: cluster.uri(database: "postgres")))
    let port = try #require(base.port)
    let cases: [(uri: String, says: String)] = [
      ("postgresql://postgres:hunter2@127.0.0.1:\(closedPort)/missions", "Connection refused"),
      ("postgresql://postgres:hunter2@127.0.0.1:\(port)/no_such_db", "does not exist"),
      ("postgres://postgres:hunter2@[::1/missions", "cannot open database"),
      ("postgresql://postgres:hunter2@127.0.0.1:port/missions", "invalid"),
      ("postgresql://postgres:hun%zzter2@127.0.0.1/missions", "percent"),
      ("postgresql://127.0.0.1:\(port)/x?password=hunter2&bogus=1", "bogus"),
    ]
    for (uri, says) in cases {
      for command in [["missions", "list"], ["nearby", "--lat", "1", "--lon", "2"]] {
        let started = Date()
        let run = try Self.run(box, command + ["--db", uri], limit: 30)
        #expect(run.status == 1, "\(uri): \(run)")
        #expect(run.out.isEmpty)
        #expect(run.err.split(separator: "\n").count == 1, "\(uri): \(run.err)")
        #expect(run.err.contains(says), "\(uri): \(run.err)")
        #expect(!run.err.contains("hunter2") && !run.err.contains("hun%zzter2"), "\(run.err)")
        #expect(Date().timeIntervalSince(started) < 15)
      }
    }
    // Nothing was taken for a file.
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: box.directory.path)
        .allSatisfy { $0.hasPrefix("run-") })
  }

  /// A server that accepts the connection and never answers (a hung host, a firewall that
  /// lets SYN through): the command gives up after the default connect timeout.
  @Test func aServerThatNeverAnswersFailsAfterTheConnectTimeout() throws {
    let box = try CLISandbox()
    // Accepted by the kernel's backlog, never read.
    let (listener, port) = try RawHTTP.loopbackSocket(listening: true)
    defer { close(listener) }
    let started = Date()
    let run = try Self.run(
      box, ["missions", "list", "--db", "postgresql://postgres@127.0.0.1:\(port)/missions"],
      limit: 40)
    let seconds = Date().timeIntervalSince(started)
    #expect(run.status == 1)
    #expect(run.err.split(separator: "\n").count == 1 && run.err.contains("timeout"), "\(run.err)")
    #expect(seconds >= 9 && seconds < 30, "gave up after \(seconds) s")
  }
}
