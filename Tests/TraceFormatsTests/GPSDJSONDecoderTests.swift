import Foundation
import MissionTracking
import Testing

@testable import TraceFormats

@Suite("gpsd JSON decoder")
struct GPSDJSONDecoderTests {
  static let version =
    #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
  static let sky =
    #"{"class":"SKY","hdop":0.9,"satellites":[{"PRN":1,"used":true},{"PRN":2,"used":false}]}"#
  static func tpv(_ time: String, lat: Double, lon: Double, extra: String = "") -> String {
    #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":""# + time
      + #"","lat":\#(lat),"lon":\#(lon)\#(extra)}"#
  }

  @Test func tpvReportsOfOneEpochMergeAndOtherClassesAreCounted() throws {
    let lines = [
      GPSDJSONDecoderTests.version,
      GPSDJSONDecoderTests.tpv("2020-03-18T13:28:19.600Z", lat: 41.5, lon: -93.7),
      GPSDJSONDecoderTests.sky,
      GPSDJSONDecoderTests.tpv(
        "2020-03-18T13:28:19.600Z", lat: 41.6, lon: -93.8,
        extra: #","altHAE":246.7,"altMSL":278.161,"eph":4.275,"speed":0.076,"track":124.888"#),
      GPSDJSONDecoderTests.tpv("2020-03-18T13:28:19.700Z", lat: 41.7, lon: -93.9),
      #"{"class":"TPV","mode":1}"#,
      #"{"class":"TPV","mode":3,"lat":1.0,"lon":2.0}"#,
    ]
    var decoder = GPSDJSONDecoder()
    let fixes = try decodeAll(lines.joined(separator: "\n"), with: &decoder, chunkSizes: [7, 13])
    #expect(fixes.count == 2)
    #expect(iso(fixes[0]) == "2020-03-18T13:28:19.600Z")
    #expect(fixes[0].coordinate.latitude == 41.6)
    #expect(fixes[0].altitudeMeters == 278.161)
    #expect(fixes[0].horizontalAccuracyMeters == 4.275)
    #expect(fixes[0].speedMetersPerSecond == 0.076)
    #expect(fixes[0].courseDegrees == 124.888)
    #expect(fixes[0].source == "gpsd")
    #expect(fixes[1].coordinate.longitude == -93.9)
    let statistics = decoder.statistics
    #expect(statistics.recordsRead == 7)
    #expect(statistics.fixes == 2)
    #expect(statistics.skipped == ["class VERSION": 1, "class SKY": 1, "no fix": 1, "no time": 1])
  }

  @Test(arguments: [
    #"{"class":"TPV","mode":3,"lat":1.0"#, #"{"class":"TPV" "mode":3}"#, "not json",
    #"{"class":"TPV","mode":3,"time":"2020-13-01T00:00:00Z","lat":1,"lon":2}"#,
    #"{"class":"TPV","mode":3,"time":"2020-01-01T00:00:00Z","lat":91,"lon":2}"#,
    #"{"class":"SKY","satellites":[{"PRN":1}}"#,
  ])
  func badLinesAreSkippedOrStopStrictMode(line: String) throws {
    var lenient = GPSDJSONDecoder()
    let fixes = try decodeAll(line + "\n", with: &lenient)
    #expect(fixes.isEmpty)
    #expect(lenient.statistics.skippedTotal == 1)
    var strict = GPSDJSONDecoder(file: "log.json", strict: true)
    #expect(throws: TraceError.self) { try decodeAll(line + "\n", with: &strict) }
  }

  @Test func stringsWithEscapesAndNestedValuesAreSkippedCorrectly() throws {
    let line =
      #"{"class":"TPV","tag":"a\"b}\\","x":{"y":[1,{"z":"]"}]},"mode":2,"#
      + #""time":"2021-01-01T00:00:00.5Z","lat":-45.5,"lon":170.25,"ok":true,"n":null}"#
    var decoder = GPSDJSONDecoder()
    let fixes = try decodeAll(line, with: &decoder)
    #expect(fixes.count == 1)
    #expect(fixes.first?.mode == .twoD)
    #expect(fixes.first.map(iso) == "2021-01-01T00:00:00.500Z")
  }

  /// gpsd's own JSON output (the JSON lines of its `.chk` files, as `gpspipe -w` prints
  /// them) decodes to one fix per distinct TPV time with lat/lon, equal to the last TPV.
  @Test(
    .enabled(if: Reference.isPresent, "../shared/reference is absent"),
    arguments: ["nmea-rtk.log.chk", "haicom-305N.log.chk", "ublox-zed-f9p-nmea.log.chk"])
  func gpsdOwnOutputDecodesToOneFixPerEpoch(chk: String) throws {
    let url = Reference.root.appendingPathComponent("gpsd-nmea/" + chk)
    let text = try String(contentsOf: url, encoding: .isoLatin1)
    let json = text.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{") }
    let expected = try GPSDConformanceTests.gpsdPositions(url)
    var decoder = GPSDJSONDecoder()
    let fixes = try decodeAll(json.joined(separator: "\n"), with: &decoder)
    #expect(Set(fixes.map { GPSDConformanceTests.key($0.time) }) == Set(expected.keys))
    #expect(fixes.count == expected.count)
    for fix in fixes {
      let position = try #require(expected[GPSDConformanceTests.key(fix.time)])
      #expect(fix.coordinate.latitude == Double(position.latitudeText))
      #expect(fix.coordinate.longitude == Double(position.longitudeText))
    }
  }

  // MARK: Hostile values and the epoch rule shared with the live gpsd source

  static func line(_ time: String, _ members: String, mode: Int = 3) -> String {
    #"{"class":"TPV","mode":\#(mode),"time":"2024-05-01T10:00:\#(time)Z","lat":59.0,"lon":18.0"#
      + members + "}"
  }

  @Test func nonFiniteOverflowingAndNegativeValuesAreAbsentNeverInfinityOrNull() throws {
    let huge = "1" + String(repeating: "0", count: 400)
    let lines = [
      Self.line("00.000", #","altMSL":1e400,"eph":-5,"speed":1e400,"track":-1e400"#),
      Self.line("01.000", #","altMSL":1e308,"eph":1e999,"epx":-1,"epy":-2,"speed":-3"#),
      Self.line("02.000", #","altMSL":\#(huge),"alt":-1e400,"eph":1e9,"track":1e300"#),
      #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:03Z","lat":1e400,"lon":18.0}"#,
      #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:04Z","lat":59.0,"lon":-1e999}"#,
      Self.line("05.000", #","altMSL":-12.5,"eph":0,"speed":0,"track":-0.0"#),
    ]
    var decoder = GPSDJSONDecoder()
    let fixes = try decodeAll(lines.joined(separator: "\n"), with: &decoder, chunkSizes: [5, 11])
    #expect(fixes.count == 4)
    for fix in fixes.prefix(3) {
      #expect(fix.altitudeMeters == nil, "\(iso(fix))")
      #expect(fix.horizontalAccuracyMeters == nil, "\(iso(fix))")
      #expect(fix.speedMetersPerSecond == nil, "\(iso(fix))")
      #expect(fix.courseDegrees == nil, "\(iso(fix))")
    }
    // Real values at the edges stay: a negative altitude, zero errors and speed, course 0.
    #expect(fixes[3].altitudeMeters == -12.5)
    #expect(fixes[3].horizontalAccuracyMeters == 0)
    #expect(fixes[3].speedMetersPerSecond == 0)
    #expect(fixes[3].courseDegrees == 0)
    #expect(fixes[3].courseDegrees?.sign == .plus)
    #expect(decoder.statistics.skipped["bad position"] == 2)

    // Nothing non-finite or in exponent form reaches the JSON lines or a GPX document.
    var jsonLines = ""
    FixJSONLinesWriter.append(fixes, to: &jsonLines)
    var gpx = ""
    var writer = GPXWriter()
    writer.start(to: &gpx)
    writer.startSegment(to: &gpx)
    for fix in fixes { writer.write(fix, to: &gpx) }
    writer.finish(to: &gpx)
    for output in [jsonLines, gpx] {
      for bad in ["null", "inf", "nan", "e+"] {
        #expect(!output.lowercased().contains(bad), "\(bad) in \(output)")
      }
    }
  }

  @Test func accuracyIsEphElseTheLargerOfEpxAndEpy() throws {
    let lines = [
      Self.line("00.000", #","epx":3,"epy":7"#),
      Self.line("01.000", #","epx":3"#),
      Self.line("02.000", #","epx":3,"epy":7,"eph":12.5"#),
    ]
    var decoder = GPSDJSONDecoder()
    let fixes = try decodeAll(lines.joined(separator: "\n"), with: &decoder)
    #expect(fixes.map(\.horizontalAccuracyMeters) == [7, 3, 12.5])
  }

  @Test func altitudeOnlyIn3DAndTrackNormalised() throws {
    let lines = [
      Self.line("00.000", #","altMSL":40,"track":360,"speed":1.5"#, mode: 2),
      Self.line("01.000", #","altMSL":40,"track":-90"#),
      Self.line("02.000", #","alt":41,"track":719.5"#),
    ]
    var decoder = GPSDJSONDecoder()
    let fixes = try decodeAll(lines.joined(separator: "\n"), with: &decoder)
    #expect(fixes.map(\.mode) == [.twoD, .threeD, .threeD])
    #expect(fixes.map(\.altitudeMeters) == [nil, 40, 41])
    #expect(fixes.map(\.courseDegrees) == [0, 270, 359.5])
    #expect(fixes[0].speedMetersPerSecond == 1.5)
  }

  @Test func membersOfOneEpochMergeAndANoFixReportEndsTheEpoch() throws {
    let lines = [
      Self.line("00.000", #","speed":3"#),
      #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:00Z","lat":59.5,"lon":18.0,"altMSL":9}"#,
      #"{"class":"TPV","mode":1,"time":"2024-05-01T10:00:00Z"}"#,
      #"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:00Z","lat":59.7,"lon":18.0}"#,
    ]
    var decoder = GPSDJSONDecoder()
    let fixes = try decodeAll(lines.joined(separator: "\n"), with: &decoder)
    #expect(fixes.count == 2)
    #expect(fixes[0].coordinate.latitude == 59.5)  // the later report's position
    #expect(fixes[0].altitudeMeters == 9)
    #expect(fixes[0].speedMetersPerSecond == 3)  // kept from the earlier report
    #expect(fixes[1].coordinate.latitude == 59.7)
    #expect(decoder.mergedReports == 1)
  }

  @Test func liveNotesTellNoFixAndDeviceActivation() throws {
    var decoder = GPSDJSONDecoder()
    var fixes: [Fix] = []
    func feed(_ line: String) throws -> GPSDJSONDecoder.Note? {
      try Array((line + "\n").utf8).withUnsafeBytes { try decoder.decode($0, into: &fixes) }
      return decoder.takeNote()
    }
    #expect(try feed(Self.line("00.000", "")) == nil)
    #expect(decoder.hasOpenEpoch)
    #expect(try feed(#"{"class":"TPV","mode":1}"#) == .noFix(mode: 1))
    #expect(!decoder.hasOpenEpoch)
    #expect(fixes.count == 1)
    #expect(
      try feed(#"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":0}"#)
        == .device(path: "/dev/ttyUSB0", activated: false))
    #expect(
      try feed(#"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":"2024-05-01T10:00:00Z"}"#)
        == .device(path: "/dev/ttyUSB0", activated: true))
    #expect(try feed(#"{"class":"DEVICES","devices":[{"path":"/dev/x","activated":0}]}"#) == nil)
    #expect(decoder.takeNote() == nil)
  }
}
