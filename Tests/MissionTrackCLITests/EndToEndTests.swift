import Foundation
import SVGTestSupport
import Testing

/// The built `missiontrack` binary run through `Process` on a temporary database: the path a
/// user takes, checking exit codes and the JSON on standard output.
@Suite struct EndToEndTests {
  static let binary = BuiltTool.path.map { URL(fileURLWithPath: $0) }

  struct Run {
    var status: Int32
    var out: String
    var err: String
    var json: [[String: Any]] { CLISandbox.jsonLines(out) }
  }

  func run(_ box: CLISandbox, _ arguments: [String]) throws -> Run {
    let binary = try #require(Self.binary)
    let process = Process()
    process.executableURL = binary
    process.arguments = arguments + ["--db", box.databasePath]
    process.currentDirectoryURL = box.directory
    let out = Pipe()
    let err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    // Read before waiting so a full pipe cannot block the child.
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    let errData = err.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
      status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
      err: String(decoding: errData, as: UTF8.self))
  }

  /// Skipped with this message when the binary is absent: run `swift build` first.
  @Test(.enabled(if: binary != nil, "missiontrack binary not built (run swift build)"))
  func importListNearbyAcceptStartShowExportReport() throws {
    let box = try CLISandbox()
    let imported = try run(box, ["missions", "import", CLISandbox.demoMissions])
    #expect(imported.status == 0)
    #expect(imported.err.contains("imported 6 missions"))

    let list = try run(box, ["missions", "list", "--json"])
    #expect(list.status == 0)
    #expect(list.json.count == 6)
    #expect(list.json.allSatisfy { $0["state"] as? String == "open" })

    let nearby = try run(box, ["nearby", "--lat", "59.6175", "--lon", "17.7230", "--json"])
    #expect(nearby.status == 0)
    let distances = nearby.json.compactMap { $0["distance_m"] as? Double }
    #expect(distances.count == 6)
    #expect(distances == distances.sorted())
    #expect(distances.allSatisfy { $0 <= 1000 })
    let target = try #require(nearby.json.first?["id"] as? String)

    let accept = try run(box, ["missions", "accept", target])
    #expect(accept.status == 0)
    #expect(accept.json.first?["to"] as? String == "accepted")
    let start = try run(box, ["missions", "start", target])
    #expect(start.status == 0)
    #expect(start.err.contains("accepted → active"))
    let illegal = try run(box, ["missions", "complete", target])
    #expect(illegal.status == 1)
    #expect(illegal.out.isEmpty)
    #expect(illegal.err.contains("it is active"))

    try box.recordWalk(toMission: target, count: 10)
    let show = try run(box, ["missions", "show", target, "--json"])
    #expect(show.status == 0)
    let shown = try #require(show.json.first)
    #expect(shown["state"] as? String == "active")
    #expect(shown["track_fixes"] as? Int == 10)

    let gpx = box.path("track.gpx")
    #expect(try run(box, ["export", target, "--format", "gpx", "-o", gpx]).status == 0)
    let gpxText = try String(contentsOfFile: gpx, encoding: .utf8)
    #expect(gpxText.components(separatedBy: "<trkpt ").count - 1 == 10)
    let events = try run(box, ["export", target, "--format", "jsonl"])
    #expect(events.status == 0)
    #expect(events.json.allSatisfy { $0["mission_id"] as? String == target })
    #expect(events.json.filter { $0["type"] as? String == "state" }.count == 2)

    let svg = box.path("report.svg")
    let report = try run(box, ["report", target, "-o", svg])
    #expect(report.status == 0)
    #expect(report.err.contains(svg))
    let parsed = ParsedSVG(try String(contentsOfFile: svg, encoding: .utf8))
    #expect(parsed.complete, "\(parsed.error ?? "")")
    #expect(!parsed.elements("polyline", class: "track").isEmpty)
  }

  @Test(.enabled(if: binary != nil, "missiontrack binary not built (run swift build)"))
  func usageErrorsExit64AndHelpExitsZero() throws {
    let box = try CLISandbox()
    let bad = try run(box, ["nearby", "--lat", "abc", "--lon", "17"])
    #expect(bad.status == 64)
    #expect(bad.err.split(separator: "\n").count == 1)
    let help = try run(box, ["missions", "import", "--help"])
    #expect(help.status == 0)
    #expect(help.out.contains("missiontrack missions import"))
    let missing = try run(box, ["missions", "show", "sig-101"])
    #expect(missing.status == 1)
  }

  /// The issue's path with a real replay of the bundled walk in place of a recorded one.
  @Test(.enabled(if: binary != nil, "missiontrack binary not built (run swift build)"))
  func importAcceptStartReplayReportExport() throws {
    let box = try CLISandbox()
    #expect(try run(box, ["missions", "import", CLISandbox.demoMissions]).status == 0)
    let at = ["--at", "2026-05-04T09:58:00Z"]
    #expect(try run(box, ["missions", "accept", "sig-101"] + at).status == 0)
    #expect(try run(box, ["missions", "start", "sig-101"] + at).status == 0)
    let walk = CLISandbox.packageRoot.appendingPathComponent("Traces/demo/walk.gpx").path
    let replay = try run(box, ["replay", walk, "--mission", "sig-101"])
    #expect(replay.status == 0)
    let events = replay.json
    #expect(
      events.contains { $0["type"] as? String == "enter" && $0["fence_id"] as? String == "sig-101" }
    )
    let fixes = events.filter { $0["type"] as? String == "fix" }.count
    #expect(fixes > 10)

    let show = try #require(try run(box, ["missions", "show", "sig-101", "--json"]).json.first)
    #expect(show["state"] as? String == "arrived")
    #expect(show["track_fixes"] as? Int == fixes)

    let svg = box.path("walk.svg")
    #expect(try run(box, ["report", "sig-101", "-o", svg]).status == 0)
    let parsed = ParsedSVG(try String(contentsOfFile: svg, encoding: .utf8))
    #expect(parsed.complete, "\(parsed.error ?? "")")
    let drawn = parsed.elements("polyline", class: "track").reduce(0) {
      $0 + ParsedSVG.points($1.attributes["points"]).count
    }
    #expect(drawn >= 2)

    let geojson = try run(box, ["export", "sig-101", "--format", "geojson"])
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(geojson.out.utf8)) as? [String: Any])
    let geometry = try #require(object["geometry"] as? [String: Any])
    #expect((geometry["coordinates"] as? [[Double]])?.count == fixes)
    let lines = try run(box, ["export", "sig-101", "--format", "jsonl"]).json
    #expect(lines.filter { $0["type"] as? String == "fix" }.count == fixes)
  }
}
