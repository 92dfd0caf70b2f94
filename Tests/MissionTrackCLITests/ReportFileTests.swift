import CommandLineSupport
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
    #expect(try renderer.write(report, toPath: svgPath, console: .capture()) == .svg)
    #expect(try renderer.write(report, toPath: htmlPath, console: .capture()) == .html)
    #expect(try String(contentsOfFile: svgPath, encoding: .utf8) == renderer.svg(report))
    #expect(try String(contentsOfFile: htmlPath, encoding: .utf8) == renderer.html(report))
    let png = directory.appendingPathComponent("r.png").path
    #expect(throws: CLIError.usage("-o FILE must end in .svg or .html, got '\(png)'")) {
      try renderer.write(report, toPath: png, console: .capture())
    }
    #expect(!FileManager.default.fileExists(atPath: png))
    let missing = directory.appendingPathComponent("no/such/dir/r.svg").path
    do {
      try renderer.write(report, toPath: missing, console: .capture())
      Issue.record("writing into a missing directory succeeded")
    } catch {
      #expect(error.exitStatus == 1)
      #expect(error.message.hasPrefix("cannot write"))
      #expect(error.message.contains(missing))
    }
    // The rules of every -o: never the database, never a FIFO.
    let database = directory.appendingPathComponent("db.svg").path
    #expect(FileManager.default.createFile(atPath: database, contents: Data("db".utf8)))
    #expect(throws: CLIError.self) {
      try renderer.write(report, toPath: database, console: .capture(), database: database)
    }
    #expect(try String(contentsOfFile: database, encoding: .utf8) == "db")
    let fifo = directory.appendingPathComponent("pipe.svg").path
    #expect(mkfifo(fifo, 0o600) == 0)
    #expect(throws: CLIError.self) {
      try renderer.write(report, toPath: fifo, console: .capture())
    }
    // An existing file keeps its mode.
    #expect(chmod(svgPath, 0o600) == 0)
    try renderer.write(report, toPath: svgPath, console: .capture())
    let mode =
      (try FileManager.default.attributesOfItem(atPath: svgPath)[.posixPermissions] as? Int)
    #expect(mode == 0o600)
  }
}
