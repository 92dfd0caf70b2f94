import Foundation
import Testing

@testable import GPSDSource
@testable import MissionTracking

struct GPSDReportTests {
  private let time = UTCTime.date(year: 2024, month: 5, day: 1, secondsOfDay: 36_000)

  private func report(mode: Int = 3, lat: Double = 59.3, lon: Double = 18.1) -> GPSDReport {
    GPSDReport(mode: mode, time: time, latitude: lat, longitude: lon)
  }

  @Test func modesBelowTwoAreNoFix() {
    #expect(report(mode: 0).meaning == .noFix)
    #expect(report(mode: 1).meaning == .noFix)
  }

  @Test func nanOrOutOfRangePositionsAreUnusable() {
    #expect(report(lat: .nan).meaning == .unusable)
    #expect(report(lon: .infinity).meaning == .unusable)
    #expect(report(lat: 91).meaning == .unusable)
    #expect(report(lon: -180.5).meaning == .unusable)
  }

  @Test func aMissingOrImplausibleTimeIsUnusable() {
    var untimed = report()
    untimed.time = nil
    #expect(untimed.meaning == .unusable)
    var ancient = report()
    ancient.time = Date(timeIntervalSince1970: -2_209_075_200)  // libgps's "bad time"
    #expect(ancient.meaning == .unusable)
  }

  @Test func absentMembersStayAbsent() throws {
    let fix = try #require(report().meaning.fix)
    #expect(fix.altitudeMeters == nil)
    #expect(fix.horizontalAccuracyMeters == nil)
    #expect(fix.speedMetersPerSecond == nil)
    #expect(fix.courseDegrees == nil)
    #expect(fix.source == "gpsd")
    #expect(fix.time == time)
  }

  @Test func accuracyIsEphElseTheLargerOfEpxAndEpy() throws {
    var r = report()
    r.epxMeters = 3
    r.epyMeters = 7
    let fromAxes = try #require(r.meaning.fix)
    #expect(fromAxes.horizontalAccuracyMeters == 7)
    r.epyMeters = .nan
    let fromOne = try #require(r.meaning.fix)
    #expect(fromOne.horizontalAccuracyMeters == 3)
    r.ephMeters = 12.5
    let fromEph = try #require(r.meaning.fix)
    #expect(fromEph.horizontalAccuracyMeters == 12.5)
  }

  @Test func altitudeOnlyIn3DAndTrackNormalised() throws {
    var r = report(mode: 2)
    r.altitudeMSLMeters = 40
    r.trackDegrees = 360
    r.speedMetersPerSecond = 1.5
    let twoD = try #require(r.meaning.fix)
    #expect(twoD.mode == .twoD)
    #expect(twoD.altitudeMeters == nil)
    #expect(twoD.courseDegrees == 0)
    #expect(twoD.speedMetersPerSecond == 1.5)
    r.mode = 3
    r.trackDegrees = -90
    let threeD = try #require(r.meaning.fix)
    #expect(threeD.altitudeMeters == 40)
    #expect(threeD.courseDegrees == 270)
  }

  @Test func libgpsDecodesATPVLine() throws {
    let client = GPSDClient()
    let line = Array(
      #"{"class":"TPV","device":"/dev/x","mode":3,"time":"2019-04-12T00:39:56.250Z","lat":-45.5,"lon":170.25,"altMSL":12.5,"eph":4.5,"speed":2.0,"track":90.0}"#
        .utf8)
    let report = try #require(client.decodeTPV(line))
    #expect(report.mode == 3)
    #expect(report.latitude == -45.5)
    #expect(report.longitude == 170.25)
    #expect(report.altitudeMSLMeters == 12.5)
    #expect(report.ephMeters == 4.5)
    #expect(report.epxMeters.isNaN)
    #expect(report.time == UTCTime.parse("2019-04-12T00:39:56.250Z")?.date)
    // A TPV without a position leaves NaN behind, not the previous report's values.
    let bare = try #require(client.decodeTPV(Array(#"{"class":"TPV","mode":1}"#.utf8)))
    #expect(bare.mode == 1)
    #expect(bare.latitude.isNaN)
    #expect(bare.time == nil)
    #expect(client.decodeTPV(Array(#"{"class":"SKY"}"#.utf8)) == nil)
  }

  @Test(arguments: [
    (#"{"class":"TPV","mode":3}"#, GPSDLineKind.tpv),
    (#"{"class":"SKY","satellites":[]}"#, .other("SKY")),
    (#"{"class":"TPV","mode":3,"lat":zz}"#, .malformed),
    (#"{"class":3}"#, .malformed),
    (#"{"mode":3}"#, .malformed),
    ("[1,2]", .malformed),
    ("", .malformed),
    ("$GPRMC,100000.00,V,,,,,,,010524,,,N*7E", .malformed),
  ])
  func linesAreClassifiedBeforeLibgpsSeesThem(line: String, kind: GPSDLineKind) {
    #expect(GPSDLineKind(line: Array(line.utf8)) == kind)
  }
}

extension GPSDReport.Meaning {
  /// The fix, when the meaning is one.
  var fix: Fix? {
    if case .fix(let fix) = self { fix } else { nil }
  }
}
