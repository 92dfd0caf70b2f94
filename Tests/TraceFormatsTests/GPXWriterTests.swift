import Foundation
import MissionTracking
import Testing
import TraceFormats

/// GPXWriter: schema validity, exact round trips through GPXDecoder, streaming.
struct GPXWriterTests {
  /// Seeded fixes covering every optional member, the antimeridian and course wrap-around.
  static func sampleFixes(count: Int, seed: UInt64) -> [Fix] {
    var random = SplitMix64(seed: seed)
    var fixes: [Fix] = []
    var time = 1_700_000_000.0
    for k in 0..<count {
      time += Double(Int.random(in: 1...5000, using: &random)) / 1000
      let lat = Double.random(in: -90...90, using: &random)
      let lon = k % 7 == 3 ? 180 : Double.random(in: -180...180, using: &random)
      let full = k % 3 != 0
      fixes.append(
        Fix(
          time: Date(timeIntervalSince1970: time),
          coordinate: Coordinate(uncheckedLatitude: lat, longitude: lon),
          mode: full ? .threeD : .twoD, source: "gpx",
          altitudeMeters: full ? Double.random(in: -400...8000, using: &random) : nil,
          horizontalAccuracyMeters: full ? Double.random(in: 0...90, using: &random) : nil,
          speedMetersPerSecond: k % 2 == 0 ? Double.random(in: 0...60, using: &random) : nil,
          courseDegrees: k % 5 == 0 ? 359.99999 : Double.random(in: 0..<360, using: &random),
          satellitesUsed: full ? Int.random(in: 0...40, using: &random) : nil))
    }
    return fixes
  }

  static func xmllint() -> String? {
    for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":") {
      let path = "\(dir)/xmllint"
      if FileManager.default.isExecutableFile(atPath: path) { return path }
    }
    return nil
  }

  static let canValidate =
    xmllint() != nil && FileManager.default.fileExists(atPath: GPXTestSupport.schema.path)

  /// Runs `xmllint --noout --schema` on `document`; returns its exit status and messages.
  static func validate(_ document: String) throws -> (status: Int32, output: String) {
    let file = FileManager.default.temporaryDirectory
      .appendingPathComponent("gpxwriter-\(UUID().uuidString).gpx")
    try Data(document.utf8).write(to: file)
    defer { try? FileManager.default.removeItem(at: file) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: xmllint()!)
    process.arguments = ["--noout", "--nonet", "--schema", GPXTestSupport.schema.path, file.path]
    let pipe = Pipe()
    process.standardError = pipe
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, output)
  }

  static func writeInSegments(_ fixes: [Fix]) -> String {
    var writer = GPXWriter(creator: "test & <co>", trackName: "Straße \"7\" 'x' \u{1}")
    var out = ""
    for (k, fix) in fixes.enumerated() {
      if k == fixes.count / 2 { writer.startSegment(to: &out) }
      writer.write(fix, to: &out)
    }
    writer.finish(to: &out)
    return out
  }

  @Test(
    .enabled(if: canValidate, "xmllint or ../shared/reference/schema/gpx-1.1.xsd is missing"))
  func outputIsValidAgainstTheGPX11Schema() throws {
    let result = try Self.validate(Self.writeInSegments(Self.sampleFixes(count: 60, seed: 1)))
    #expect(result.status == 0, "\(result.output)")
    let empty = try Self.validate(GPXWriter.document(for: []))
    #expect(empty.status == 0, "\(empty.output)")
  }

  @Test(
    .enabled(if: canValidate, "xmllint or ../shared/reference/schema/gpx-1.1.xsd is missing"))
  func theSchemaCheckRejectsWrongElementOrder() throws {
    // Proves the validation above can fail: <time> before <ele> breaks the schema.
    let bad = GPXWriter.document(for: Self.sampleFixes(count: 2, seed: 2))
      .replacingOccurrences(
        of: #"<ele>([^<]*)</ele><time>([^<]*)</time>"#, with: "<time>$2</time><ele>$1</ele>",
        options: .regularExpression)
    #expect(try Self.validate(bad).status != 0)
  }

  @Test func elementsComeInSchemaOrder() {
    let document = GPXWriter.document(for: Self.sampleFixes(count: 30, seed: 3))
    let order = ["<ele>", "<time>", "<fix>", "<sat>", "<hdop>", "<extensions>"]
    for line in document.split(separator: "\n") where line.hasPrefix("<trkpt") {
      let positions = order.compactMap { line.range(of: $0)?.lowerBound }
      #expect(positions == positions.sorted())
      #expect(line.contains("<time>"))
      #expect(!line.contains("e+") && !line.contains("e-"))
    }
  }

  @Test func writtenFixesDecodeBackExactlyEnough() throws {
    let fixes = Self.sampleFixes(count: 200, seed: 4)
    let run = try GPXTestSupport.decode(Self.writeInSegments(fixes), strict: true)
    #expect(run.fixes.count == fixes.count)
    for (written, read) in zip(fixes, run.fixes) {
      #expect(abs(read.coordinate.latitude - written.coordinate.latitude) <= 5e-10)
      let lon = written.coordinate.longitude == 180 ? -180 : written.coordinate.longitude
      #expect(abs(read.coordinate.longitude - lon) <= 5e-10)
      #expect(GPXTestSupport.millis(read.time) == GPXTestSupport.millis(written.time))
      #expect(read.mode == written.mode)
      #expect(read.satellitesUsed == written.satellitesUsed)
      #expect(abs((read.altitudeMeters ?? 0) - (written.altitudeMeters ?? 0)) <= 5e-4)
      #expect(
        abs((read.horizontalAccuracyMeters ?? 0) - (written.horizontalAccuracyMeters ?? 0)) <= 1e-4)
      #expect(abs((read.speedMetersPerSecond ?? 0) - (written.speedMetersPerSecond ?? 0)) <= 5e-4)
      let course = try #require(read.courseDegrees)
      #expect((0..<360).contains(course))
    }
    #expect(run.fixes[5].courseDegrees == 0)  // 359.99999 rounds to 360, written as 0
    #expect(run.fixes[3].coordinate.longitude == -180)
  }

  @Test func textIsEscapedAndSegmentsSplit() throws {
    let document = Self.writeInSegments(Self.sampleFixes(count: 4, seed: 5))
    #expect(document.contains(#"creator="test &amp; &lt;co&gt;""#))
    #expect(document.contains("<name>Straße &quot;7&quot; &apos;x&apos; </name>"))
    #expect(document.components(separatedBy: "<trkseg>").count == 3)
    let points = try GPXTestSupport.points(document)
    #expect(points.map(\.segment) == [0, 0, 1, 1])
  }

  @Test func streamingWritesEqualTheWholeDocument() {
    let fixes = Self.sampleFixes(count: 20, seed: 6)
    var writer = GPXWriter()
    var pieces: [String] = []
    for fix in fixes {
      var piece = ""
      writer.write(fix, to: &piece)
      pieces.append(piece)
    }
    var last = ""
    writer.finish(to: &last)
    #expect(pieces.joined() + last == GPXWriter.document(for: fixes))
    #expect(pieces.count == 20 && pieces.allSatisfy { $0.hasSuffix("</trkpt>\n") })
  }
}
