import Foundation
import MissionStore
import MissionTracking
import SVGTestSupport
import Testing

@testable import MissionTrackCLI

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `export` and `report`, in process, on a recorded walk.
@Suite struct ExportReportCommandTests {
  static let schema = CLISandbox.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/reference/schema/gpx-1.1.xsd").path
  static let canValidate =
    FileManager.default.fileExists(atPath: schema)
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint")

  func walked() async throws -> CLISandbox {
    let box = try CLISandbox()
    try await box.importDemo()
    _ = await box.run(["missions", "accept", "sig-101"])
    _ = await box.run(["missions", "start", "sig-101"])
    try box.recordWalk(toMission: "sig-101", count: 12)
    return box
  }

  @Test func gpxExportHoldsEveryFixAndParses() async throws {
    let box = try await walked()
    let result = await box.run(["export", "sig-101", "--format", "gpx"])
    #expect(result.status == 0)
    #expect(result.out.contains("http://www.topografix.com/GPX/1/1"))
    #expect(result.out.components(separatedBy: "<trkpt ").count - 1 == 12)
    #expect(XMLParser(data: Data(result.out.utf8)).parse())
  }

  /// Needs ../shared/reference/schema/gpx-1.1.xsd and xmllint; skipped otherwise.
  @Test(.enabled(if: canValidate, "needs ../shared/reference/schema and xmllint"))
  func gpxExportWrittenWithOValidatesAgainstTheSchema() async throws {
    let box = try await walked()
    let file = box.path("walk.gpx")
    let result = await box.run(["export", "sig-101", "-o", file])
    #expect(result.status == 0)
    #expect(result.out.isEmpty)
    #expect(result.err.contains(file))
    let lint = Process()
    lint.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
    lint.arguments = ["--noout", "--schema", Self.schema, file]
    lint.standardOutput = FileHandle.nullDevice
    lint.standardError = FileHandle.nullDevice
    try lint.run()
    lint.waitUntilExit()
    #expect(lint.terminationStatus == 0)
  }

  @Test func geojsonExportIsALineStringOfTheTrack() async throws {
    let box = try await walked()
    let result = await box.run(["export", "sig-101", "--format", "geojson"])
    #expect(result.status == 0)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
    let geometry = try #require(object["geometry"] as? [String: Any])
    #expect(geometry["type"] as? String == "LineString")
    #expect((geometry["coordinates"] as? [[Double]])?.count == 12)
  }

  @Test func jsonlExportIsTheStoredEventsInOrder() async throws {
    let box = try await walked()
    let result = await box.run(["export", "sig-101", "--format", "jsonl"])
    #expect(result.status == 0)
    let types = CLISandbox.jsonLines(result.out).map { $0["type"] as? String ?? "" }
    #expect(types.prefix(2) == ["state", "state"])
    #expect(types.filter { $0 == "fix" }.count == 12)
    #expect(types.last == "enter")
  }

  @Test func exportUsageAndRuntimeErrors() async throws {
    let box = try await walked()
    #expect(await box.run(["export", "sig-101"]).status == 64)
    #expect(await box.run(["export", "sig-101", "--format", "kml"]).status == 64)
    #expect(await box.run(["export", "--format", "gpx"]).status == 64)
    #expect(await box.run(["export", "nope", "--format", "gpx"]).status == 1)
    let unwritable = await box.run(
      ["export", "sig-101", "--format", "gpx", "-o", box.path("no/such/dir/x.gpx")])
    #expect(unwritable.status == 1)
  }

  @Test func reportWritesAWellFormedSVGWithTheTrack() async throws {
    let box = try await walked()
    let file = box.path("sig-101.svg")
    let result = await box.run(["report", "sig-101", "-o", file])
    #expect(result.status == 0)
    #expect(result.err.contains(file))
    let svg = ParsedSVG(try String(contentsOfFile: file, encoding: .utf8))
    #expect(svg.complete, "\(svg.error ?? "")")
    let track = svg.elements("polyline", class: "track")
    #expect(!track.isEmpty)
    #expect(track.reduce(0) { $0 + ParsedSVG.points($1.attributes["points"]).count } >= 2)
    #expect(svg.elements.contains { $0.text.contains("Photograph the shop front") })
  }

  @Test func reportAsHTMLAndItsErrors() async throws {
    let box = try await walked()
    let html = box.path("r.html")
    #expect(await box.run(["report", "sig-101", "-o", html]).status == 0)
    #expect(try String(contentsOfFile: html, encoding: .utf8).hasPrefix("<!DOCTYPE html>"))
    #expect(await box.run(["report", "sig-101"]).status == 64)
    #expect(await box.run(["report", "sig-101", "-o", box.path("r.png")]).status == 64)
    #expect(await box.run(["report", "nope", "-o", box.path("n.svg")]).status == 1)
  }

  func enterMarkers(_ box: CLISandbox, _ name: String) async throws -> Int {
    let file = box.path(name)
    #expect(await box.run(["report", "sig-101", "-o", file]).status == 0)
    let svg = ParsedSVG(try String(contentsOfFile: file, encoding: .utf8))
    return svg.elements("g").filter {
      ($0.attributes["class"] ?? "").split(separator: " ").contains("enter")
    }.count
  }

  @Test func reportLeavesOutEventsOfOtherMissionsFences() async throws {
    let box = try await walked()
    let before = try await enterMarkers(box, "before.svg")
    #expect(before >= 1)
    let database = try MissionDatabase(path: box.databasePath)
    let mission = try #require(try database.mission(id: "sig-101"))
    let fix = Fix(
      time: Date(timeIntervalSince1970: 1_777_600_200), coordinate: mission.coordinate,
      source: "test")
    try database.record(
      TrackingEvent(
        time: fix.time, missionID: "sig-101",
        kind: .enter(fenceID: "sig-104", distanceMeters: 10, initial: false)))
    try database.record(
      TrackingEvent(
        time: fix.time, missionID: "sig-101",
        kind: .enter(fenceID: "sig-101", distanceMeters: 0, initial: false)))
    try database.close()
    // The own fence's second enter is drawn, the other fence's is not.
    #expect(try await enterMarkers(box, "after.svg") == before + 1)
  }
}
