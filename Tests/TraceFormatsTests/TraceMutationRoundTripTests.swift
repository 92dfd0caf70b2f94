import Foundation
import MissionTracking
import Testing

@testable import TraceFormats

/// Mutated traces written in each format are valid traces of that format and read back,
/// through our own readers, as the fixes the mutator produced.
@Suite struct TraceMutationRoundTripTests {
  static let faults = TraceFaults(
    noiseSigmaMeters: 3, dropoutProbability: 0.1,
    outages: [TraceOutage(start: .secondsAfterFirstFix(200), durationSeconds: 40)],
    jumpMeters: 500, jumpEvery: 60, duplicateProbability: 0.08, reorderProbability: 0.08,
    seed: 2026)

  static let schema = Reference.root.appendingPathComponent("schema/gpx-1.1.xsd").path
  static let canValidate =
    FileManager.default.fileExists(atPath: schema)
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint")

  let mutated: [Fix]

  init() throws {
    mutated = try TraceMutator.mutate(MutationFixtures.walk(), with: Self.faults)
  }

  /// Same fixes within the format's precision: time to 1 ms, position to `degrees`.
  func expectSame(
    _ read: [Fix], _ written: [Fix], degrees: Double,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(read.count == written.count, sourceLocation: sourceLocation)
    for (a, b) in zip(read, written) {
      #expect(abs(a.time.timeIntervalSince(b.time)) < 0.001, sourceLocation: sourceLocation)
      #expect(
        abs(a.coordinate.latitude - b.coordinate.latitude) < degrees
          && abs(a.coordinate.longitude - b.coordinate.longitude) < degrees,
        "\(a.coordinate) vs \(b.coordinate)", sourceLocation: sourceLocation)
      #expect(a.mode == b.mode, sourceLocation: sourceLocation)
      if let altitude = b.altitudeMeters {
        #expect(abs((a.altitudeMeters ?? .nan) - altitude) < 0.001, sourceLocation: sourceLocation)
      }
      if let accuracy = b.horizontalAccuracyMeters {
        #expect(
          abs((a.horizontalAccuracyMeters ?? .nan) - accuracy) < 0.01,
          sourceLocation: sourceLocation)
      }
    }
  }

  @Test func sameSeedSameBytesInEveryFormat() throws {
    for format in TraceFormat.allCases {
      let again = try TraceMutator.mutate(MutationFixtures.walk(), with: Self.faults)
      #expect(
        TraceWriter.document(for: mutated, as: format)
          == TraceWriter.document(for: again, as: format))
    }
  }

  @Test func gpxKeepsEveryPointDuplicatesIncluded() throws {
    let text = TraceWriter.document(for: mutated, as: .gpx)
    let (read, format) = try MutationFixtures.read(text)
    #expect(format == .gpx)
    expectSame(read, mutated, degrees: 1e-8)
    #expect(read.count > MutationFixtures.foldingRepeatedEpochs(mutated).count)
  }

  @Test(.enabled(if: canValidate, "needs ../shared/reference/schema and xmllint"))
  func gpxValidatesAgainstTheSchema() throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("mutated-\(UUID().uuidString).gpx")
    try Data(TraceWriter.document(for: mutated, as: .gpx).utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let lint = Process()
    lint.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
    lint.arguments = ["--noout", "--schema", Self.schema, url.path]
    lint.standardOutput = FileHandle.nullDevice
    lint.standardError = FileHandle.nullDevice
    try lint.run()
    lint.waitUntilExit()
    #expect(lint.terminationStatus == 0)
  }

  @Test func nmeaReadsBackOneFixPerEpochWithValidChecksums() throws {
    let text = TraceWriter.document(for: mutated, as: .nmea)
    let lines = text.split(separator: "\r\n")
    #expect(lines.count >= 4 * mutated.count)
    for line in lines {
      let star = try #require(line.lastIndex(of: "*"))
      #expect(line.first == "$")
      let body = line[line.index(after: line.startIndex)..<star]
      let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
      #expect(UInt8(line[line.index(after: star)...], radix: 16) == sum, "\(line)")
    }
    var decoder = NMEADecoder(strict: true)
    let read = try decodeAll(text, with: &decoder, chunkSizes: [7, 4096])
    #expect(decoder.statistics.skippedTotal == 0)
    #expect(decoder.statistics.warnings.isEmpty)
    // A report repeated in a row is one epoch to an NMEA reader, as to gpsd.
    let expected = MutationFixtures.foldingRepeatedEpochs(mutated)
    expectSame(read, expected, degrees: 1e-8)
    for (a, b) in zip(read, expected) {
      #expect(abs((a.speedMetersPerSecond ?? .nan) - (b.speedMetersPerSecond ?? .nan)) < 0.001)
      #expect(abs((a.courseDegrees ?? .nan) - (b.courseDegrees ?? .nan)) < 0.01)
      #expect(a.satellitesUsed == b.satellitesUsed)
    }
    #expect(try MutationFixtures.read(text).format == .nmea)
  }

  @Test func gpsdJSONReadsBackToTheLastDigitAndEveryLineIsATPV() throws {
    let text = TraceWriter.document(for: mutated, as: .gpsdJSON)
    for line in text.split(separator: "\n") {
      let object = try #require(
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
      #expect(object["class"] as? String == "TPV")
    }
    var decoder = GPSDJSONDecoder(strict: true)
    let read = try decodeAll(text, with: &decoder)
    let expected = MutationFixtures.foldingRepeatedEpochs(mutated)
    #expect(read.count == expected.count)
    for (a, b) in zip(read, expected) {
      // Shortest round-trip text loses nothing; the decoder's fast number parser may land
      // one unit in the last place away (1e-14 degrees).
      #expect(abs(a.coordinate.latitude - b.coordinate.latitude) < 1e-12)
      #expect(abs(a.coordinate.longitude - b.coordinate.longitude) < 1e-12)
      #expect(a.altitudeMeters == b.altitudeMeters)
      #expect(a.horizontalAccuracyMeters == b.horizontalAccuracyMeters)
      #expect(a.speedMetersPerSecond == b.speedMetersPerSecond)
      #expect(abs(a.time.timeIntervalSince(b.time)) < 0.001)
    }
    #expect(try MutationFixtures.read(text).format == .gpsdJSON)
  }

  @Test func nmeaPositionsSurviveHemispheresAndTheAntimeridian() throws {
    let points = [(-33.8688, 151.2093), (40.7128, -74.006), (-0.000001, -179.9999999), (89.99, 0)]
    let fixes = points.enumerated().map { index, point in
      Fix(
        time: MutationFixtures.start.addingTimeInterval(Double(index) + 0.123),
        coordinate: Coordinate(uncheckedLatitude: point.0, longitude: point.1), mode: .twoD,
        source: "test")
    }
    var decoder = NMEADecoder(strict: true)
    let read = try decodeAll(NMEAWriter.document(for: fixes), with: &decoder)
    expectSame(read, fixes, degrees: 1e-8)
  }

  @Test func aMutatedSourceDeliversTheLibraryCallsFixesAndItsStatuses() async throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("source-\(UUID().uuidString).gpx")
    try Data(GPXWriter.document(for: MutationFixtures.walk()).utf8).write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let source = try TraceReplaySource(path: url.path).injectingFaults(Self.faults)
    for _ in 0..<2 {
      var fixes: [Fix] = []
      var statuses: [SourceStatus] = []
      for try await report in source.reports() {
        switch report {
        case .fix(let fix):
          #expect(statuses.isEmpty, "no fix after the end of the replay")
          fixes.append(fix)
        case .status(let status): statuses.append(status)
        }
      }
      expectSame(fixes, mutated, degrees: 1e-8)
      #expect(statuses.count == 1)
    }
    #expect(throws: TraceError.self) {
      try TraceReplaySource(path: url.path).injectingFaults(TraceFaults(reorderProbability: 3))
    }
  }
}
