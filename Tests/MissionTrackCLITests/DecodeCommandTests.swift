import CommandLineSupport
import Foundation
import Testing

@testable import MissionTrackCLI

@Suite("missiontrack decode")
struct DecodeCommandTests {
  static func checksummed(_ body: String) -> String {
    var checksum: UInt8 = 0
    for b in body.utf8.dropFirst() { checksum ^= b }
    let hex = String(checksum, radix: 16, uppercase: true)
    return body + "*" + (hex.count == 1 ? "0" + hex : hex)
  }

  static func file(_ text: String, extension suffix: String = "nmea") throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("mt-decode-\(UUID().uuidString).\(suffix)").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  /// `missiontrack decode` of a GPX document written to a temporary file: its exit status
  /// and the console that captured its output.
  static func decodeGPX(_ gpx: String) async throws -> (status: Int32, console: Console) {
    let path = try file(gpx, extension: "gpx")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let console = Console.capture()
    return (await MissionTrackTool.run(["decode", path], console: console), console)
  }

  static let log =
    [
      checksummed("$GPGGA,235959.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
      checksummed("$GPRMC,235959.00,A,4807.038,N,01131.000,E,022.4,084.4,311219,003.1,W,A"),
      "$GPRMC,000000.00,A,4807.038,N,01131.000,E,022.4,084.4,010120,003.1,W,A*00",
      checksummed("$GPGSV,1,1,01,01,02,03,04"),
    ].joined(separator: "\n") + "\n"

  @Test func printsOneJSONLinePerFixAndASummaryOnStandardError() async throws {
    let path = try DecodeCommandTests.file(DecodeCommandTests.log)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let console = Console.capture()
    let status = await MissionTrackTool.run(["decode", path], console: console)
    #expect(status == 0)
    let lines = console.capturedOutput.split(separator: "\n")
    #expect(lines.count == 1)
    let expected =
      #"{"time":"2019-12-31T23:59:59.000Z","lat":48.1173,"lon":11.516666666666667,"#
      + #""alt_m":545.4,"mode":3,"eph_m":17.1,"speed_mps":11.523555555555555,"#
      + #""course_deg":84.4,"source":"nmea"}"#
    #expect(lines.first.map(String.init) == expected)
    #expect(
      console.capturedError
        == "nmea: 4 records, 1 fixes, skipped 2 (bad checksum 1, ignored sentence type 1)\n")
  }

  @Test func strictModeFailsWithFileAndLine() async throws {
    let path = try DecodeCommandTests.file(DecodeCommandTests.log)
    defer { try? FileManager.default.removeItem(atPath: path) }
    let console = Console.capture()
    let status = await MissionTrackTool.run(["decode", "--strict", path], console: console)
    #expect(status == 1)
    #expect(console.capturedError.contains("\(path):3: bad checksum: *00, computed *"))
  }

  @Test func aDateOverrideDatesALogWithoutOne() async throws {
    let gga = DecodeCommandTests.checksummed(
      "$GPGGA,101010.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    let path = try DecodeCommandTests.file(gga + "\n")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let undated = Console.capture()
    #expect(await MissionTrackTool.run(["decode", path], console: undated) == 0)
    #expect(undated.capturedOutput.isEmpty)
    #expect(undated.capturedError.contains("no date (use --date) 1"))
    let dated = Console.capture()
    #expect(
      await MissionTrackTool.run(["decode", path, "--date", "2024-05-01"], console: dated) == 0)
    #expect(dated.capturedOutput.hasPrefix(#"{"time":"2024-05-01T10:10:10.000Z""#))
  }

  @Test func rolloverAfterMovesOldDatesForwardAndTheSummaryCountsThem() async throws {
    let rmc = DecodeCommandTests.checksummed(
      "$GPRMC,101010.00,A,4807.038,N,01131.000,E,0,0,200899,,")
    let path = try DecodeCommandTests.file(rmc + "\n")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let asWritten = Console.capture()
    #expect(await MissionTrackTool.run(["decode", path], console: asWritten) == 0)
    #expect(asWritten.capturedOutput.hasPrefix(#"{"time":"1999-08-20T10:10:10.000Z""#))
    let corrected = Console.capture()
    #expect(
      await MissionTrackTool.run(
        ["decode", path, "--rollover-after", "2017-01-01"], console: corrected) == 0)
    #expect(corrected.capturedOutput.hasPrefix(#"{"time":"2019-04-05T10:10:10.000Z""#))
    #expect(
      corrected.capturedError
        == "nmea: 1 records, 1 fixes; warnings: GPS week rollover corrected 1\n")
  }

  @Test func untimedGPXPointsArePrintedWithoutATimeAndCounted() async throws {
    let gpx = """
      <gpx version="1.1" creator="t"><wpt lat="59.5" lon="17.5"/>
      <rte><rtept lat="59.6" lon="17.6"><ele>4</ele></rtept></rte>
      <trk><trkseg><trkpt lat="59.7" lon="17.7"><time>2024-05-01T10:00:00Z</time></trkpt>
      <trkpt lat="59.8" lon="17.8"><hdop>2</hdop></trkpt></trkseg></trk></gpx>
      """
    let (status, console) = try await DecodeCommandTests.decodeGPX(gpx)
    #expect(status == 0)
    #expect(
      console.capturedOutput.split(separator: "\n") == [
        #"{"lat":59.5,"lon":17.5,"mode":2,"source":"gpx","kind":"waypoint"}"#,
        #"{"lat":59.6,"lon":17.6,"alt_m":4.0,"mode":3,"source":"gpx","kind":"route"}"#,
        #"{"time":"2024-05-01T10:00:00.000Z","lat":59.7,"lon":17.7,"mode":2,"source":"gpx"}"#,
        #"{"lat":59.8,"lon":17.8,"mode":2,"eph_m":38.0,"source":"gpx"}"#,
      ])
    #expect(console.capturedError == "gpx: 4 records, 1 fixes, 3 untimed points\n")
  }

  @Test func timedWaypointsAndRoutePointsCarryTheirKindAndTrackPointsNone() async throws {
    let gpx = """
      <gpx version="1.1" creator="t">
      <wpt lat="59.5" lon="17.5"><time>2024-05-01T09:00:00Z</time><name>shop</name></wpt>
      <rte><rtept lat="59.6" lon="17.6"><time>2024-05-01T09:30:00Z</time></rtept></rte>
      <trk><trkseg><trkpt lat="59.7" lon="17.7"><time>2024-05-01T10:00:00Z</time></trkpt>
      </trkseg></trk></gpx>
      """
    let (status, console) = try await DecodeCommandTests.decodeGPX(gpx)
    #expect(status == 0)
    #expect(
      console.capturedOutput.split(separator: "\n") == [
        #"{"time":"2024-05-01T09:00:00.000Z","lat":59.5,"lon":17.5,"mode":2,"source":"gpx","#
          + #""kind":"waypoint"}"#,
        #"{"time":"2024-05-01T09:30:00.000Z","lat":59.6,"lon":17.6,"mode":2,"source":"gpx","#
          + #""kind":"route"}"#,
        #"{"time":"2024-05-01T10:00:00.000Z","lat":59.7,"lon":17.7,"mode":2,"source":"gpx"}"#,
      ])
    #expect(console.capturedError == "gpx: 3 records, 3 fixes\n")
  }

  @Test func strictModePrintsEveryFixBeforeTheError() async throws {
    let points = (0..<3).map {
      "<trkpt lat=\"1\" lon=\"\($0)\"><time>2024-05-01T10:00:0\($0)Z</time></trkpt>"
    }
    let gpx =
      "<gpx><trk><trkseg>" + points.joined() + "<trkpt lat=\"91\" lon=\"0\"/>"
      + points.joined() + "</trkseg></trk></gpx>"
    let path = try DecodeCommandTests.file(gpx, extension: "gpx")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let console = Console.capture()
    #expect(await MissionTrackTool.run(["decode", "--strict", path], console: console) == 1)
    #expect(console.capturedOutput.split(separator: "\n").count == 3)
    #expect(console.capturedError.contains("<trkpt> latitude 91 is outside [-90, 90]"))
  }

  @Test(arguments: [
    ["decode"], ["decode", "a", "b"], ["decode", "x", "--date", "2024-13-01"],
    ["decode", "x", "--rollover-after", "1999"],
    ["decode", "x", "--bogus"],
  ])
  func usageErrorsExit64(arguments: [String]) async {
    let console = Console.capture()
    #expect(await MissionTrackTool.run(arguments, console: console) == 64)
    #expect(console.capturedError.hasPrefix("missiontrack decode: "))
  }

  @Test func aMissingFileIsARuntimeError() async {
    let console = Console.capture()
    #expect(await MissionTrackTool.run(["decode", "/nonexistent.nmea"], console: console) == 1)
    #expect(console.capturedError.contains("/nonexistent.nmea: cannot open"))
  }
}
