import Foundation
import MissionTracking
import Testing
import TextRules

@testable import TraceFormats

@Suite("Streaming trace reader")
struct TraceReaderTests {
  static let rmc = sentence(
    "$GPRMC,123519.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,A")
  static let rmc2 = sentence(
    "$GPRMC,123520.00,A,4807.039,N,01131.000,E,022.4,084.4,230394,003.1,W,A")

  /// A fresh temporary file holding `text`.
  static func temporaryFile(_ text: String, name: String = "trace") throws -> String {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("mt-\(UUID().uuidString)-\(name)").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test(arguments: [
    ("$GPGGA,1", TraceFormat.nmea), ("!AIVDM,1", .nmea), ("# gpsd log\n#x\n$GPRMC", .nmea),
    ("A logger header\nsecond line\n$GPRMC,", .nmea), ("blah7.000,A,5103*7D\n$GPRMC", .nmea),
    ("{\"class\":\"VERSION\"}", .gpsdJSON), ("\u{FEFF}<?xml version=\"1.0\"?><gpx>", .gpx),
    ("  \n<gpx version=\"1.1\">", .gpx),
  ])
  func formatsAreRecognisedFromContent(prefix: String, format: TraceFormat) {
    let detected = Array(prefix.utf8).withUnsafeBytes {
      TraceFormat.detect(in: $0, isComplete: true)
    }
    #expect(detected == format)
  }

  @Test func anUndecidedPrefixWaitsForMoreBytes() {
    let partial = Array("free text without newline".utf8).withUnsafeBytes {
      TraceFormat.detect(in: $0)
    }
    #expect(partial == nil)
    let json = Array("{\"cla".utf8).withUnsafeBytes { TraceFormat.detect(in: $0) }
    #expect(json == nil)
  }

  @Test func tinyChunksGiveTheSameFixesAsLargeOnes() throws {
    let text = "# header\n" + TraceReaderTests.rmc + "\r\n" + TraceReaderTests.rmc2
    let path = try TraceReaderTests.temporaryFile(text)
    defer { try? FileManager.default.removeItem(atPath: path) }
    var small: [Fix] = []
    var large: [Fix] = []
    try TraceReader(path: path, chunkSize: 1).forEachBatch { small += $0 }
    try TraceReader(path: path).forEachBatch { large += $0 }
    #expect(large.count == 2)
    #expect(small == large)
  }

  @Test func gpxIsDetectedAndDecodedByTheGPXReader() throws {
    let path = try TraceReaderTests.temporaryFile(
      "<?xml version=\"1.0\"?>\n<gpx><trk><trkseg><trkpt lat=\"59.5\" lon=\"17.25\">"
        + "<time>2024-05-01T10:00:00Z</time></trkpt></trkseg></trk></gpx>\n")
    defer { try? FileManager.default.removeItem(atPath: path) }
    let reader = try TraceReader(path: path)
    var fixes: [Fix] = []
    try reader.forEachBatch { fixes += $0 }
    #expect(reader.format == .gpx)
    #expect(fixes.map(\.coordinate) == [try Coordinate(latitude: 59.5, longitude: 17.25)])
  }

  @Test func unreadableAndUnrecognisedInputsAreClearErrors() throws {
    #expect {
      try TraceReader(path: "/nonexistent/trace.nmea")
    } throws: { error in
      let error = error as? TraceError
      return error?.file == "/nonexistent/trace.nmea"
        && error?.reason.hasPrefix("cannot open") == true
    }
    #expect(throws: TraceError.self) { try TraceReader(path: NSTemporaryDirectory()) }
    let garbage = try TraceReaderTests.temporaryFile("hello\nworld\n")
    defer { try? FileManager.default.removeItem(atPath: garbage) }
    #expect {
      try TraceReader(path: garbage).forEachBatch { _ in }
    } throws: { error in
      (error as? TraceError)?.reason.hasPrefix("unrecognised trace format") == true
    }
    let empty = try TraceReaderTests.temporaryFile("")
    defer { try? FileManager.default.removeItem(atPath: empty) }
    var count = 0
    let statistics = try TraceReader(path: empty).forEachBatch { count += $0.count }
    #expect(count == 0)
    #expect(statistics.recordsRead == 0)
  }

  @Test func aNamedPipeIsReadAsItIsWritten() async throws {
    let path = FileManager.default.temporaryDirectory
      .appendingPathComponent("mt-fifo-\(UUID().uuidString)").path
    #expect(mkfifo(path, 0o600) == 0)
    defer { unlink(path) }
    let text = TraceReaderTests.rmc + "\n" + TraceReaderTests.rmc2 + "\n"
    let writer = Thread {
      let fd = open(path, O_WRONLY)
      for byte in Array(text.utf8) {
        var b = byte
        _ = write(fd, &b, 1)
      }
      close(fd)
    }
    writer.start()
    var fixes: [Fix] = []
    try TraceReader(path: path).forEachBatch { fixes += $0 }
    #expect(fixes.count == 2)
  }

  @Test func fixesWriteAsDecodeJSONLines() throws {
    var fix = Fix(
      time: UTCTime.date(year: 2024, month: 5, day: 1, secondsOfDay: 36_000.25),
      coordinate: try Coordinate(latitude: 59.5, longitude: -18.25), mode: .twoD, source: "nmea")
    #expect(
      FixJSONLinesWriter.line(for: fix)
        == #"{"time":"2024-05-01T10:00:00.250Z","lat":59.5,"lon":-18.25,"mode":2,"source":"nmea"}"#)
    fix.altitudeMeters = 12.5
    fix.horizontalAccuracyMeters = 4.75
    fix.speedMetersPerSecond = 1.5
    fix.courseDegrees = 270
    fix.mode = .threeD
    #expect(
      FixJSONLinesWriter.line(for: fix)
        == #"{"time":"2024-05-01T10:00:00.250Z","lat":59.5,"lon":-18.25,"alt_m":12.5,"mode":3,"#
        + #""eph_m":4.75,"speed_mps":1.5,"course_deg":270.0,"source":"nmea"}"#)
    var text = ""
    FixJSONLinesWriter.append([fix, fix], to: &text)
    #expect(text.split(separator: "\n").count == 2)
  }
}
