import Foundation
import MissionTracking
import Testing
import TextRules

@testable import TraceFormats

/// Other receivers' logs (`../shared/reference/nmea-misc`): counts and first/last points as its
/// README states them (GPSBabel 1.8.0 merges GGA/RMC of one time and drops void fixes, as we
/// do). Deliberate differences are stated in `note`.
@Suite(
  "NMEA logs from other receivers",
  .enabled(if: Reference.isPresent, "../shared/reference is absent: reference tests skipped"))
struct NMEAMiscReferenceTests {
  struct Expectation: Sendable, CustomTestStringConvertible {
    var file: String
    var fixes: Int
    /// `lat, lon, time` of the first and last fix, or nil for none.
    var first: (Double, Double, String)?
    var last: (Double, Double, String)?
    var date: String? = nil
    var note: String = ""
    var testDescription: String { file }
  }

  static let expectations: [Expectation] = [
    Expectation(
      file: "gpsbabel__amod-nmea.nmea", fixes: 4,
      first: (35.824985, -86.847065, "2008-06-05T20:06:41.000Z"),
      last: (35.824985, -86.847065, "2008-06-05T20:06:44.000Z"),
      note: "two free-text lines are skipped as 'not NMEA'"),
    Expectation(
      file: "gpsbabel__backfilldate.nmea", fixes: 499,
      first: (50.2246, 17.174616667, "2019-03-08T23:56:00.000Z"),
      last: (50.215966667, 17.1044, "2019-03-09T00:04:19.000Z"),
      note:
        "dated only by the last line's ZDA: back-filled across midnight; the GGA at 23:57:49 "
        + "has 00 satellites, no fix by gpsd's rule (GPSBabel keeps it: 500)"),
    Expectation(
      file: "gpsbabel__mtk_locus.nmea", fixes: 2,
      first: (51.061028333, -114.124086667, "2012-10-26T19:25:18.000Z"),
      last: (51.06108, -114.124083333, "2012-10-26T19:25:39.000Z"),
      note: "partial first line and $PMTKLOX dump lines skipped"),
    Expectation(
      file: "gpsbabel__nmea+ms.nmea", fixes: 35,
      first: (53.556728333, 9.865573333, "2007-08-17T09:31:56.000Z"),
      last: (53.556728333, 9.865575, "2007-08-17T09:32:05.750Z"),
      note: """
        GPSBabel: 26 points from 09:31:56.500. We report the undated first GGA (09:31:56.000, \
        back-filled) and, before cleaning, every epoch: sentences of one epoch up to 3 epochs \
        out of order merge, but some GGAs here arrive 2 s (8 epochs) early and become their \
        own fixes with a repeated time; cleaning later drops such repeats.
        """),
    Expectation(
      file: "gpsbabel__subrip-input.nmea", fixes: 453,
      first: (45.490465, 9.151045, "2010-04-09T19:02:27.696Z"),
      last: (45.491778333, 9.147405, "2010-04-09T19:09:59.669Z"),
      note: "RMC and GGA of one receiver cycle are 1 s apart: 453 epochs by time"),
    Expectation(
      file: "gpsbabel__track-nmea.nmea", fixes: 154,
      first: (42.530485, -88.121721667, "2004-08-07T03:29:08.379Z"),
      last: (42.530516667, -88.121758333, "2004-08-07T03:31:41.370Z")),
    Expectation(
      file: "logiqx__GT31_20220411_111600.nmea", fixes: 4161,
      first: (50.571066667, -2.456366667, "2022-04-11T10:16:22.000Z"),
      last: (50.57105, -2.4564, "2022-04-11T12:06:32.000Z"),
      note: """
        The README gives GPSBabel's last point as 50.571033333, -2.456366667 (the position of \
        the 12:06:12 epoch); the file's 12:06:32 RMC and GGA both say 5034.263 N 00227.384 W, \
        which is what we report.
        """),
    Expectation(
      file: "logiqx__GT31_20220411_DLG_allvoid.nmea", fixes: 0, first: nil, last: nil,
      note: "every RMC is V and every GGA quality 0"),
    Expectation(
      file: "nmeaparser__NmeaSampleData.nmea", fixes: 4469,
      first: (39.432836667, -119.76559, "2005-09-25T23:52:34.000Z"),
      last: (39.441678333, -119.769976667, "2005-09-26T02:56:32.000Z")),
    Expectation(
      file: "nmeaparser__TrimbleR2SampleData.nmea", fixes: 34,
      first: (34.057860399, -117.196821182, "2017-12-20T23:56:47.000Z"),
      last: (34.057834645, -117.196821873, "2017-12-20T23:57:20.000Z")),
    Expectation(
      file: "pynmea2__data.nmea", fixes: 0, first: nil, last: nil,
      note: "a GGA with no date anywhere: dropped as 'no date' (GPSBabel drops it too)"),
    Expectation(
      file: "pynmea2__data.nmea", fixes: 1,
      first: (-19.484083333, 24.175100000, "2020-01-01T18:43:53.070Z"),
      last: (-19.484083333, 24.175100000, "2020-01-01T18:43:53.070Z"), date: "2020-01-01",
      note: "with --date it gives 1 point, as GPSBabel does with date=…"),
  ]

  @Test(arguments: NMEAMiscReferenceTests.expectations)
  func countsAndEndpointsMatchTheReadme(expected: Expectation) throws {
    let path = Reference.root.appendingPathComponent("nmea-misc/" + expected.file).path
    let date = expected.date.flatMap { UTCTime.parse($0 + "T00:00:00Z")?.date }
    let reader = try TraceReader(path: path, fallbackDate: date)
    var fixes: [Fix] = []
    let statistics = try reader.forEachBatch { fixes += $0 }
    #expect(reader.format == .nmea)
    #expect(fixes.count == expected.fixes, "\(expected.note)")
    #expect(statistics.fixes == fixes.count)
    for (fix, point) in [(fixes.first, expected.first), (fixes.last, expected.last)] {
      guard let point else {
        #expect(fix == nil)
        continue
      }
      let fix = try #require(fix)
      #expect(abs(fix.coordinate.latitude - point.0) < 1e-8, "\(expected.file)")
      #expect(abs(fix.coordinate.longitude - point.1) < 1e-8, "\(expected.file)")
      #expect(iso(fix) == point.2, "\(expected.file)")
    }
  }

  @Test func backFilledDatesStepExactlyOnceAtMidnight() throws {
    let path = Reference.root.appendingPathComponent("nmea-misc/gpsbabel__backfilldate.nmea")
    var fixes: [Fix] = []
    try TraceReader(path: path.path).forEachBatch { fixes += $0 }
    let steps = zip(fixes, fixes.dropFirst()).map { $1.time.timeIntervalSince($0.time) }
    // One 2 s step where the 00-satellite GGA (23:57:49, no fix) was.
    #expect(steps.filter { $0 != 1 } == [2])
    #expect(fixes.contains { iso($0) == "2019-03-08T23:57:48.000Z" })
  }
}
