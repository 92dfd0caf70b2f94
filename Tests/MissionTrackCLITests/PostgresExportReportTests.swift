import CommandLineSupport
import Foundation
import MissionCatalog
import MissionTracking
import PostgresTestSupport
import Testing
import TextRules
import TraceFormats

@testable import MissionTrackCLI

/// `export` and `report` of the built binary on `--db postgresql://…`: for the same
/// recording on SQLite and on PostgreSQL, every format and every report file comes out byte
/// for byte the same, and so do the refusals (unknown and hostile ids, output paths that
/// cannot be written), with the same exit status.
///
/// The recording goes through the engine's `TrackingStore` on each store (the demo walk
/// replayed to sig-101), plus one batch of every event kind written through it, so the
/// stores are filled by their own code, as `track` and `serve` fill them.
@Suite(.binaryBuilt, .postgresInstalled)
struct PostgresExportReportTests {
  typealias Run = PostgresCommandTests.Run

  /// Ids of missions that are awkward in SQL, in a path or in a pattern (quotes, `..`, `%`
  /// and `_`), the longest id allowed and one with an accent (stored in NFC).
  static let hostileIDs = [
    #"it's "quoted""#, "../../etc/passwd", "50%_off", String(repeating: "x", count: 200),
    "caf\u{e9}",
  ]

  /// The CSV of `hostileIDs` plus `untitled`.
  static func hostileCSV() -> String {
    var lines = ["id,lat,lon,title,radius_m,deadline,state"]
    for (index, id) in hostileIDs.enumerated() {
      let quoted = "\"" + id.replacingOccurrences(of: "\"", with: "\"\"") + "\""
      lines.append("\(quoted),59.61\(index),17.72,Hostile \(index),40,,open")
    }
    lines.append("untitled,59.62,17.73,,30,,open")
    return lines.joined(separator: "\n") + "\n"
  }

  /// A mission past its deadline but still open: imported after the commands that expire
  /// due missions, so that `report` is the first to.
  static let lateCSV = """
    id,lat,lon,title,radius_m,deadline,state
    late-1,59.63,17.74,Too late,30,2020-01-01T00:00:00Z,open

    """

  /// A sandbox whose SQLite file and PostgreSQL database hold the same recording.
  struct Recorded {
    let box: CLISandbox
    let uri: String

    /// SQLite first, then PostgreSQL.
    var stores: [String] { [box.databasePath, uri] }
  }

  /// The store `--db store` names, opened as the commands open it.
  static func open(_ store: String) throws -> any MissionCatalogStore & TrackingStore {
    var arguments = ArgumentList(["--db", store])
    return try DatabaseOption(&arguments).openCatalog()
  }

  /// Runs `arguments` and expects success.
  static func succeed(_ box: CLISandbox, _ arguments: [String]) throws {
    let run = try PostgresCommandTests.run(box, arguments)
    #expect(run.status == 0, "\(arguments.joined(separator: " ")): \(run)")
  }

  /// The demo, hostile and late missions on both stores; sig-101 walked to (the demo walk
  /// replayed through the engine: accepted, started, fixes, enter, arrived, the source's
  /// end) and sig-103 tracked by worker `bo` with one batch of every kind of event a
  /// tracker records.
  static func recorded() async throws -> Recorded {
    let box = try CLISandbox()
    let csv = box.path("hostile.csv")
    try Data(hostileCSV().utf8).write(to: URL(fileURLWithPath: csv))
    try Data(lateCSV.utf8).write(to: URL(fileURLWithPath: box.path("late.csv")))
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    let recorded = Recorded(box: box, uri: uri)
    let at = ["--at", "2026-05-04T09:30:00Z"]
    for store in recorded.stores {
      for arguments in [
        ["missions", "import", CLISandbox.demoMissions], ["missions", "import", csv],
        ["missions", "accept", "sig-101"] + at, ["workers", "add", "bo", "--name", "Bo"],
        ["missions", "accept", "sig-103", "--worker", "bo"] + at,
        ["missions", "start", "sig-103"] + at,
      ] {
        try succeed(box, arguments + ["--db", store])
      }
      let database = try open(store)
      let source = TraceReplaySource(path: CLISandbox.walkGPX)
      let start = try #require(UTCTime.parse("2026-05-04T10:00:00Z")?.date)
      let engine = MissionEngine(store: database, source: source, clock: ManualClock(start))
      try await engine.open()
      try await engine.perform(.start, on: "sig-101", at: start)
      #expect(await engine.waitUntilTrackingEnds() == .sourceEnded)
      await engine.shutdown()
      try await database.record(everyKind(of: "sig-103"))
      try await database.close()
      try succeed(box, ["missions", "import", box.path("late.csv"), "--db", store])
    }
    return recorded
  }

  /// One batch of mission `id` for worker `bo` with every kind of event a tracker records
  /// (but `state`, which transitions record): fixes with every optional field and with
  /// none, a sub-millisecond time, `-0` numbers, enter/dwell/exit/crossed of its own and of
  /// another mission's fence, a source event whose detail has quotes and a newline, a
  /// rejection count.
  static func everyKind(of id: String) throws -> TrackingBatch {
    let base = Date(timeIntervalSince1970: 1_777_888_000)
    let point = try Coordinate(latitude: 59.6156, longitude: 17.7263)
    func fix(_ second: Double, _ meters: Double, full: Bool) throws -> Fix {
      let position = try point.destination(bearingDegrees: 90, distanceMeters: meters)
      return full
        ? Fix(
          time: base.addingTimeInterval(second), coordinate: position, mode: .twoD,
          source: "owntracks", altitudeMeters: -0.0, horizontalAccuracyMeters: 4.5,
          speedMetersPerSecond: 1.25, courseDegrees: 359.9, satellitesUsed: 9)
        : Fix(time: base.addingTimeInterval(second), coordinate: position, source: "")
    }
    let fixes = [
      try fix(0, 120, full: true), try fix(5.123_456_789, 70, full: false),
      try fix(10, 0, full: true), try fix(20, 90, full: false),
    ]
    func at(_ second: Double) -> Date { base.addingTimeInterval(second) }
    let kinds: [TrackingEvent.Kind] = [
      .fix(fixes[0], distanceToMissionMeters: 120, travelledMeters: 0),
      .crossed(fenceID: "sig-104", closestDistanceMeters: 12.5),
      .fix(fixes[1], distanceToMissionMeters: 70, travelledMeters: 50),
      .rejected(reason: "accuracy", count: 3),
      .fix(fixes[2], distanceToMissionMeters: -0.0, travelledMeters: 120),
      .enter(fenceID: id, distanceMeters: 0, initial: false),
      .dwell(fenceID: id, dwellSeconds: 10),
      .source(.gap, detail: "no fix for 7 s: \"antenna\"\nunplugged"),
      .fix(fixes[3], distanceToMissionMeters: 90, travelledMeters: 210),
      .exit(fenceID: id, distanceMeters: 90),
      .enter(fenceID: "sig-104", distanceMeters: 3, initial: true),
    ]
    let times = [0, 1, 5.123_456_789, 6, 10, 10, 20, 15, 20, 20, 20].map(at)
    let events = zip(kinds, times).map { kind, time in
      TrackingEvent(time: time, missionID: id, workerID: "bo", kind: kind)
    }
    return TrackingBatch(
      missionID: id, workerID: "bo", events: events,
      fenceStates: [id: FenceState(isInside: false, insideSince: nil, dwellReported: false)],
      travelledMeters: 210)
  }

  /// Runs `arguments` on each store in turn and reads the file `output` (relative to the
  /// sandbox; removed before each run) after it.
  /// - Returns: The SQLite run and its file, then PostgreSQL's.
  static func both(_ recorded: Recorded, _ arguments: [String], output: String? = nil) throws
    -> [(run: Run, file: Data?)]
  {
    try recorded.stores.map { store in
      if let output { unlink(recorded.box.path(output)) }
      // Before the arguments: an id may follow `--`.
      let withStore = arguments.prefix(1) + ["--db", store] + arguments.dropFirst()
      let run = try PostgresCommandTests.run(recorded.box, Array(withStore))
      let file = output.flatMap { FileManager.default.contents(atPath: recorded.box.path($0)) }
      return (run, file)
    }
  }

  /// Expects byte-identical runs and files of `arguments` on both stores.
  /// - Returns: The SQLite run and file, for checks that it did what it means to.
  @discardableResult
  static func expectSame(_ recorded: Recorded, _ arguments: [String], output: String? = nil)
    throws -> (run: Run, file: Data?)
  {
    let runs = try both(recorded, arguments, output: output)
    let shown = arguments.joined(separator: " ")
    #expect(runs[1].run == runs[0].run, "\(shown)")
    #expect(runs[1].file == runs[0].file, "\(shown): the files differ")
    return runs[0]
  }

  @Test func everyExportAndReportWritesTheSameBytesOnPostgreSQLAsOnSQLite() async throws {
    let recorded = try await Self.recorded()
    let ids = ["sig-101", "sig-103", "sig-102", "untitled"] + Self.hostileIDs
    var runs: [String: Run] = [:]
    var files: [String: Data] = [:]
    for id in ids {
      for format in ["gpx", "geojson", "jsonl"] {
        let key = "\(id) \(format)"
        runs[key] = try Self.expectSame(recorded, ["export", "--format", format, "--", id]).run
        let file = "out.\(format)"
        files[key] = try Self.expectSame(recorded, ["export", "-o", file, "--", id], output: file)
          .file
      }
      for file in ["r.svg", "r.html"] {
        files["\(id) \(file)"] =
          try Self.expectSame(recorded, ["report", "-o", file, "--", id], output: file).file
      }
    }
    // The same through -o - and with the id typed in NFD.
    try Self.expectSame(recorded, ["export", "sig-101", "--format", "jsonl", "-o", "-"])
    try Self.expectSame(recorded, ["export", "cafe\u{301}", "--format", "gpx"])
    try Self.expectSame(recorded, ["report", "cafe\u{301}", "-o", "r.svg"], output: "r.svg")

    // The comparisons compared something: the recordings hold what they mean to.
    let walk = try #require(runs["sig-101 jsonl"])
    let types = CLISandbox.jsonLines(walk.out).compactMap { $0["type"] as? String }
    #expect(types.filter { $0 == "fix" }.count > 100)
    #expect(types.contains("enter") && walk.out.contains(#""to":"arrived""#), "\(types)")
    let batch = CLISandbox.jsonLines(try #require(runs["sig-103 jsonl"]).out)
    #expect(
      Set(batch.compactMap { $0["type"] as? String })
        == ["state", "fix", "crossed", "rejected", "enter", "dwell", "source", "exit"])
    #expect(try #require(runs["sig-103 jsonl"]).out.contains(#"\"antenna\"\nunplugged"#))
    #expect(try #require(runs["sig-101 gpx"]).out.components(separatedBy: "<trkpt ").count > 100)
    #expect(try #require(runs["sig-103 geojson"]).out.contains("LineString"))
    // No track, no events: an empty track, nothing on standard output.
    #expect(try #require(runs["sig-102 jsonl"]).out.isEmpty)
    #expect(try #require(runs["untitled gpx"]).out.contains("<name>untitled</name>"))
    #expect(files.count == ids.count * 5)
    #expect(
      files.filter { $0.key.hasSuffix(".svg") || $0.key.hasSuffix(".html") }.values
        .allSatisfy { !$0.isEmpty })
    let svg = String(decoding: try #require(files["sig-101 r.svg"]), as: UTF8.self)
    #expect(svg.contains("class=\"track\"") && svg.contains("Photograph the shop front"))
  }

  @Test func unknownAndHostileIdsAndUnwritableOutputsFailTheSameOnBothStores() async throws {
    let recorded = try await Self.recorded()
    let box = recorded.box
    try FileManager.default.createDirectory(
      atPath: box.path("a-directory.gpx"), withIntermediateDirectories: false)
    let unknown = [
      "no-such", "x\ny", "'; DROP TABLE missions; --", "%", "_", "../sig-101", "sig-101\u{1B}[2J",
      String(repeating: "y", count: 201), String(repeating: "\u{e9}", count: 5_000), " ",
    ]
    var commands: [[String]] = []
    for id in unknown {
      commands.append(["export", "--format", "jsonl", "--", id])
      commands.append(["export", "-o", "x.geojson", "--", id])
      commands.append(["report", "-o", "x.svg", "--", id])
    }
    commands += [
      // Output paths that cannot be written: a directory, a device, no such directory.
      ["export", "sig-101", "-o", "a-directory.gpx"],
      ["export", "sig-101", "--format", "gpx", "-o", "/dev/null"],
      ["export", "sig-101", "-o", "no/such/dir/x.jsonl"],
      ["report", "sig-101", "-o", "a-directory.svg"],
      ["report", "sig-101", "-o", "no/such/dir/r.html"],
      // Usage errors are found before the store is opened.
      ["export", "sig-101"], ["export", "sig-101", "--format", "kml"],
      ["report", "sig-101"], ["report", "sig-101", "-o", "r.png"],
    ]
    try FileManager.default.createDirectory(
      atPath: box.path("a-directory.svg"), withIntermediateDirectories: false)
    var statuses: [Int32] = []
    for command in commands {
      let runs = try Self.both(recorded, command)
      #expect(runs[1].run == runs[0].run, "\(command.joined(separator: " "))")
      statuses.append(runs[0].run.status)
      #expect(runs[0].run.err.split(separator: "\n").count == 1, "\(runs[0].run.err)")
    }
    #expect(
      statuses == Array(repeating: 1, count: unknown.count * 3) + [1, 1, 1, 1, 1] + [
        64, 64, 64, 64,
      ])
    #expect(
      try PostgresCommandTests.run(box, ["export", "--format", "gpx", "x'y", "--db", recorded.uri])
        .err.contains("no mission with id 'x'y'"))
    // Nothing was written where it was refused.
    #expect(
      FileKind(path: box.path("x.geojson")) == nil && FileKind(path: box.path("x.svg")) == nil)
  }

  @Test func reportExpiresTheMissionsPastTheirDeadlineOnPostgreSQLAsOnSQLite() async throws {
    let recorded = try await Self.recorded()
    let runs = try Self.both(recorded, ["report", "late-1", "-o", "late.svg"], output: "late.svg")
    #expect(runs[1].run == runs[0].run)
    // The pictures differ only in the expiry's time: the wall clock of each run.
    let clock = try Regex(#"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|\d\d:\d\d:\d\d"#)
    let pictures = try runs.map {
      String(decoding: try #require($0.file), as: UTF8.self).replacing(clock, with: "TIME")
    }
    #expect(pictures[1] == pictures[0])
    #expect(pictures[0].contains("TIME state open → expired"))
    for store in recorded.stores {
      let show = try PostgresCommandTests.run(
        recorded.box, ["missions", "show", "--json", "late-1", "--db", store])
      #expect(show.out.contains(#""action":"expire","from":"open","to":"expired""#), "\(show)")
    }
  }

  /// A URI is no file: an `-o` path that spells the URI as a relative path is an ordinary
  /// file to write (an SQLite `--db` of that path would be refused as the database).
  @Test func anOutputFileSpelledLikeTheURIIsWrittenNotRefused() async throws {
    let recorded = try await Self.recorded()
    let box = recorded.box
    let directory = URL(fileURLWithPath: box.path(recorded.uri)).deletingLastPathComponent()
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try Data("old\n".utf8).write(to: URL(fileURLWithPath: box.path(recorded.uri)))
    let run = try PostgresCommandTests.run(
      box, ["export", "sig-101", "--format", "gpx", "-o", recorded.uri, "--db", recorded.uri])
    #expect(run.status == 0, "\(run)")
    let written = try String(contentsOfFile: box.path(recorded.uri), encoding: .utf8)
    #expect(written.hasPrefix("<?xml"))
  }
  /// `ogr2ogr` (GDAL, which QGIS reads PostGIS with) on the database the commands filled:
  /// the missions as a point layer, each track as a `mission_tracks` LineString with the
  /// points `export` gives.
  @Test(
    .enabled(
      if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ogr2ogr"),
      "ogr2ogr is not installed (Debian gdal-bin)"))
  func ogr2ogrReadsTheMissionsAndTracksTheCommandsRecorded() async throws {
    let recorded = try await Self.recorded()
    let uri = try #require(URL(string: recorded.uri))
    let source =
      "PG:host=\(uri.host ?? "") port=\(uri.port ?? 0) user=\(uri.user ?? "")"
      + " dbname=\(uri.lastPathComponent)"
    /// The features of layer `name` as GeoJSON.
    func features(_ name: String) throws -> [[String: Any]] {
      let ogr = Process()
      ogr.executableURL = URL(fileURLWithPath: "/usr/bin/ogr2ogr")
      ogr.arguments = ["-f", "GeoJSON", "/vsistdout/", source, name]
      let output = Pipe()
      ogr.standardOutput = output
      ogr.standardError = FileHandle.nullDevice
      try ogr.run()
      let data = output.fileHandleForReading.readDataToEndOfFile()
      ogr.waitUntilExit()
      #expect(ogr.terminationStatus == 0, "ogr2ogr \(name)")
      let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
      return document?["features"] as? [[String: Any]] ?? []
    }
    func geometry(_ feature: [String: Any]) -> (type: String, coordinates: Any?) {
      let geometry = feature["geometry"] as? [String: Any]
      return (geometry?["type"] as? String ?? "", geometry?["coordinates"])
    }
    func id(_ feature: [String: Any], _ key: String) -> String {
      (feature["properties"] as? [String: Any])?[key] as? String ?? ""
    }

    let missions = try features("missions")
    #expect(missions.count == 6 + Self.hostileIDs.count + 2)
    #expect(missions.allSatisfy { geometry($0).type == "Point" })
    let shop = try #require(missions.first { id($0, "id") == "sig-101" })
    #expect(geometry(shop).coordinates as? [Double] == [17.72185, 59.61708])

    let tracks = try features("mission_tracks")
    #expect(tracks.map { id($0, "mission_id") }.sorted() == ["sig-101", "sig-103"])
    #expect(tracks.allSatisfy { geometry($0).type == "LineString" })
    for track in tracks {
      let mission = id(track, "mission_id")
      let exported = try PostgresCommandTests.run(
        recorded.box, ["export", mission, "--format", "geojson", "--db", recorded.uri])
      let object = try JSONSerialization.jsonObject(with: Data(exported.out.utf8))
      let line = ((object as? [String: Any])?["geometry"] as? [String: Any])?["coordinates"]
      let expected = try #require(line as? [[Double]])
      let read = try #require(geometry(track).coordinates as? [[Double]])
      #expect(read.count == expected.count && expected.count >= 4, "\(mission)")
      // The export writes 7 decimals (1 cm).
      for (a, b) in zip(read, expected) {
        #expect(abs(a[0] - b[0]) <= 6e-8 && abs(a[1] - b[1]) <= 6e-8, "\(mission): \(a) \(b)")
      }
    }
  }
}
