import Foundation
import MissionReporting
import MissionTracking
import Testing

@testable import MissionTrackCLI

/// Writing the report file, as the `report` command does.
@Suite struct ReportFileTests {
  @Test func theExtensionChoosesTheFormatAndBadPathsFailClearly() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("missiontrack-report-file-\(UInt64.random(in: 0...UInt64.max))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let renderer = ReportRenderer()
    let point = try Coordinate(latitude: 59.8586, longitude: 17.6389)
    let report = MissionReport(
      mission: Mission(id: "M-7", title: "Shop front", coordinate: point),
      track: [
        Fix(time: Date(timeIntervalSince1970: 1_714_557_600), coordinate: point, source: "test")
      ])
    let svgPath = directory.appendingPathComponent("r.svg").path
    let htmlPath = directory.appendingPathComponent("r.HTML").path
    #expect(try renderer.write(report, toPath: svgPath) == .svg)
    #expect(try renderer.write(report, toPath: htmlPath) == .html)
    #expect(try String(contentsOfFile: svgPath, encoding: .utf8) == renderer.svg(report))
    #expect(try String(contentsOfFile: htmlPath, encoding: .utf8) == renderer.html(report))
    let png = directory.appendingPathComponent("r.png").path
    #expect(throws: CLIError.usage("-o FILE must end in .svg or .html, got '\(png)'")) {
      try renderer.write(report, toPath: png)
    }
    #expect(!FileManager.default.fileExists(atPath: png))
    let missing = directory.appendingPathComponent("no/such/dir/r.svg").path
    do {
      try renderer.write(report, toPath: missing)
      Issue.record("writing into a missing directory succeeded")
    } catch {
      #expect(error.exitStatus == 1)
      #expect(error.message.hasPrefix("cannot write '\(missing)': "))
    }
  }
}
