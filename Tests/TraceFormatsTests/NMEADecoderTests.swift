import Foundation
import MissionTracking
import Testing
import TextRules

@testable import TraceFormats

@Suite("NMEA 0183 decoder")
struct NMEADecoderTests {
  static let rmc = sentence(
    "$GPRMC,123519.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,A")
  static let gga = sentence(
    "$GPGGA,123519.00,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
  static let gsa = sentence("$GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")
  static let vtg = sentence("$GPVTG,054.7,T,034.4,M,005.5,N,010.2,K,A")

  @Test func sentencesOfOneEpochMergeIntoOneFixCarryingEverything() throws {
    let text =
      [NMEADecoderTests.rmc, NMEADecoderTests.gga, NMEADecoderTests.gsa].joined(
        separator: "\r\n") + "\r\n"
    let (fixes, statistics) = try decodeNMEA(text)
    #expect(fixes.count == 1)
    let fix = try #require(fixes.first)
    #expect(iso(fix) == "1994-03-23T12:35:19.000Z")
    #expect(fix.coordinate.latitude == (48 * 60 + 7.038) / 60)
    #expect(fix.coordinate.longitude == (11 * 60 + 31.0) / 60)
    #expect(fix.altitudeMeters == 545.4)
    #expect(fix.mode == .threeD)
    #expect(fix.satellitesUsed == 8)
    #expect(fix.courseDegrees == 84.4)
    #expect(abs(fix.speedMetersPerSecond! - 22.4 * 1852 / 3600) < 1e-12)
    // GSA's HDOP (1.3, after GGA's 0.9) times gpsd's UERE of 19 m.
    #expect(abs(fix.horizontalAccuracyMeters! - 1.3 * 19) < 1e-9)
    #expect(fix.source == "nmea")
    #expect(statistics.fixes == 1)
    #expect(statistics.recordsRead == 3)
  }

  @Test func vtgJoinsTheOpenEpoch() throws {
    let (fixes, _) = try decodeNMEA(NMEADecoderTests.rmc + "\n" + NMEADecoderTests.vtg + "\n")
    #expect(fixes.first?.courseDegrees == 54.7)
    #expect(fixes.first?.speedMetersPerSecond == 5.5 * 1852 / 3600)
  }

  @Test func gstAccuracyWinsOverHDOP() throws {
    let gst = sentence("$GPGST,123519.00,11,,,,0.70,0.49,1.1")
    let (fixes, _) = try decodeNMEA(NMEADecoderTests.gga + "\n" + gst + "\n" + NMEADecoderTests.rmc)
    let expected = 2 * (0.7 * 0.7 + 0.49 * 0.49).squareRoot()
    #expect(abs(fixes[0].horizontalAccuracyMeters! - expected) < 1e-12)
  }

  @Test func differentialQualityUsesTheSmallerUERE() throws {
    let gga = sentence("$GNGGA,123519.00,4807.038,N,01131.000,E,2,08,0.9,545.4,M,46.9,M,,")
    let (fixes, _) = try decodeNMEA(gga + "\n" + NMEADecoderTests.rmc + "\n")
    #expect(abs(fixes[0].horizontalAccuracyMeters! - 0.9 * 4.75) < 1e-12)
  }

  @Test(arguments: ["GP", "GN", "GL", "GA", "GB", "BD", "QZ", "IN", "EC"])
  func anyTalkerIsRead(talker: String) throws {
    let rmc = sentence("$\(talker)RMC,000001,A,0100.000,S,00200.000,W,0,0,010120,,")
    let (fixes, _) = try decodeNMEA(rmc)
    #expect(fixes.count == 1)
    #expect(fixes.first?.coordinate.latitude == -1 - 0.0 / 60)
    #expect(fixes.first?.coordinate.longitude == -2)
    #expect(fixes.first?.mode == .twoD)
  }

  @Test func southAndWestAreNegativeAndMinutesAreExact() throws {
    let rmc = sentence("$GPRMC,010203,A,4134.49795459,S,09345.03431408,W,0,0,180320,,,A")
    let fix = try #require(try decodeNMEA(rmc).fixes.first)
    #expect(String(format: "%.9f", fix.coordinate.latitude) == "-41.574965910")
    #expect(String(format: "%.9f", fix.coordinate.longitude) == "-93.750571901")
  }

  @Test func badChecksumIsSkippedAndCountedOrThrowsInStrictMode() throws {
    let bad = "$GPRMC,123519.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W,A*00"
    let (fixes, statistics) = try decodeNMEA(bad + "\n")
    #expect(fixes.isEmpty)
    #expect(statistics.skipped["bad checksum"] == 1)
    #expect(throws: TraceError.self) { try decodeNMEA("\n" + bad + "\n", strict: true) }
    do {
      _ = try decodeNMEA("\n" + bad + "\n", strict: true)
    } catch {
      #expect(error.line == 2)
      #expect(error.reason.hasPrefix("bad checksum: *00, computed *"))
    }
  }

  @Test func missingChecksumIsAcceptedWithAWarning() throws {
    let (fixes, statistics) = try decodeNMEA(
      "$GPRMC,123519.00,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W\n", strict: true)
    #expect(fixes.count == 1)
    #expect(statistics.warnings["no checksum"] == 1)
  }

  @Test func lowercaseChecksumDigitsAreAccepted() throws {
    let rmc = sentence("$GPRMC,000008,A,0100.000,S,00200.000,W,0,0,010120,,")
    #expect(rmc.suffix(2).contains { $0.isLetter })
    let (fixes, _) = try decodeNMEA(rmc.dropLast(2) + rmc.suffix(2).lowercased())
    #expect(fixes.count == 1)
  }

  @Test func garbageAndAPartialFirstLineCostOnlyTheirOwnLines() throws {
    let text =
      "9.000,A,5103.6616,N,11407.4451,W,0.0*7D\n" + "blah blah\n" + "\u{01}\u{02}xx"
      + NMEADecoderTests.rmc + "\n" + "#comment\n"
    let (fixes, statistics) = try decodeNMEA(text)
    #expect(fixes.count == 1)
    #expect(statistics.skipped["not NMEA"] == 2)
    #expect(statistics.warnings["garbage before sentence"] == 1)
  }

  @Test func aCollisionInsideASentenceResynchronisesAtTheLastDollar() throws {
    let text = "$GPGSV,4,1,15,02,11,115,36,0" + NMEADecoderTests.rmc + "\n"
    let (fixes, _) = try decodeNMEA(text)
    #expect(fixes.count == 1)
  }

  @Test func noFixSentencesNeverBecomePositions() throws {
    let lines = [
      sentence("$GPRMC,000001,V,4807.038,N,01131.000,E,0,0,010120,,"),
      sentence("$GPRMC,000002,A,4807.038,N,01131.000,E,0,0,010120,,,N"),
      sentence("$GNRMC,000003,V,4807.038,N,01131.000,E,0,0,010120,,,A,A"),
      sentence("$GPGGA,000004,4807.038,N,01131.000,E,0,08,0.9,545.4,M,46.9,M,,"),
      sentence("$GPGLL,4807.038,N,01131.000,E,000005,V,N"),
      sentence("$GPGLL,4807.038,N,01131.000,E,000006,A,N"),
      sentence("$GNGNS,000007,4807.038,N,01131.000,E,NNNN,00,,,0.0,,0000"),
      sentence("$GPRMC,000008,A,,,,,0,0,010120,,"),
      sentence("$GPGGA,000009,,,,,1,08,0.9,,M,,M,,"),
      sentence("$GPRMC,,V,,,,,,,,,,N"),
    ]
    let (fixes, statistics) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(fixes.isEmpty)
    #expect(statistics.skipped["no fix"] == 9)
    #expect(statistics.skipped.count == 2)
    #expect(statistics.skipped["no time"] == 1)
  }

  /// A Quectel EC2x log: NMEA 4.1 RMCs with navigational status `V` on every sentence.
  static let quectelLog =
    [
      sentence("$GPGSV,3,1,11,01,52,054,38,03,56,289,41,04,17,317,29,08,32,180,34,0"),
      sentence("$GPGGA,081553.00,3150.788156,N,11711.922383,E,1,08,0.9,63.0,M,-2.0,M,,"),
      sentence("$GPRMC,081553.00,A,3150.788156,N,11711.922383,E,0.0,,020324,,,A,V"),
      sentence("$GPGSA,A,3,01,03,04,08,11,14,17,22,,,,,1.6,0.9,1.3,1"),
      sentence("$GPVTG,,T,,M,0.0,N,0.0,K,A"),
      sentence("$GPGGA,081554.00,3150.788201,N,11711.922416,E,1,08,0.9,63.1,M,-2.0,M,,"),
      sentence("$GPRMC,081554.00,A,3150.788201,N,11711.922416,E,0.1,12.5,020324,,,A,V"),
      sentence("$GPRMC,081555.00,A,3150.788250,N,11711.922450,E,0.1,12.5,020324,,,A,V"),
      sentence("$GPRMC,081556.00,V,,,,,,,020324,,,N,V"),
    ].joined(separator: "\r\n") + "\r\n"

  @Test func rmcNavigationalStatusIsIgnoredAsGpsdDoes() throws {
    let (fixes, statistics) = try decodeNMEA(NMEADecoderTests.quectelLog)
    #expect(
      fixes.map(iso) == [
        "2024-03-02T08:15:53.000Z", "2024-03-02T08:15:54.000Z", "2024-03-02T08:15:55.000Z",
      ])
    #expect(fixes.first?.satellitesUsed == 8)
    #expect(fixes.first?.mode == .threeD)
    #expect(fixes.last?.mode == .twoD)
    #expect(statistics.skipped["no fix"] == 1)
  }

  @Test func ggaWithFewerThanThreeSatellitesIsNoFixAsGpsdDoes() throws {
    let lines = [
      sentence("$GPZDA,101000,01,02,2021,00,00"),
      sentence("$GPGGA,101000,4807.038,N,01131.000,E,1,00,0.9,545.4,M,46.9,M,,"),
      sentence("$GPGGA,101001,4807.038,N,01131.000,E,2,02,0.9,545.4,M,46.9,M,,"),
      sentence("$GPGGA,101002,4807.038,N,01131.000,E,1,,0.9,545.4,M,46.9,M,,"),
      sentence("$GPGGA,101003,4807.038,N,01131.000,E,1,03,0.9,545.4,M,46.9,M,,"),
    ]
    let (fixes, statistics) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(fixes.map(iso) == ["2021-02-01T10:10:03.000Z"])
    #expect(fixes.first?.satellitesUsed == 3)
    #expect(statistics.skipped["no fix (fewer than 3 satellites)"] == 3)
  }

  @Test func anRMCAfterAFewSatellitesGGAStillGivesItsPosition() throws {
    // gpsd's last sentence of the cycle sets the mode; haicom-305N starts like this.
    let lines = [
      sentence("$GPGGA,095304.802,2712.6520,S,15303.1397,E,1,00,17.0,3.0,M,42.2,M,,"),
      sentence("$GPRMC,095304.802,A,2712.6520,S,15303.1397,E,0.00,133.96,080407,,,A"),
    ]
    let (fixes, _) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(fixes.count == 1)
    #expect(fixes.first?.mode == .twoD)
    #expect(fixes.first?.altitudeMeters == nil)
  }

  static let rolloverLog =
    [
      sentence("$GPRMC,120000,A,4807.038,N,01131.000,E,0,0,200899,,"),
      sentence("$GPRMC,120001,A,4807.038,N,01131.000,E,0,0,200899,,"),
      sentence("$GPRMC,130000,A,4807.038,N,01131.000,E,0,0,020324,,"),
    ].joined(separator: "\n") + "\n"

  @Test func datesAreKeptAsWrittenWithoutARolloverCorrection() throws {
    let (fixes, statistics) = try decodeNMEA(NMEADecoderTests.rolloverLog)
    #expect(fixes.map(iso).first == "1999-08-20T12:00:00.000Z")
    #expect(statistics.warnings[NMEADecoder.rolloverWarning] == nil)
  }

  @Test func theRolloverCorrectionMovesOldDatesForwardByWholeEras() throws {
    let pivot = UTCTime.date(year: 2017, month: 1, day: 1, secondsOfDay: 0)
    var decoder = NMEADecoder(rollover: NMEAWeekRollover(pivot: pivot))
    let fixes = try decodeAll(NMEADecoderTests.rolloverLog, with: &decoder)
    // 1999-08-20 + 1024 weeks = 2019-04-05; 2024 is after the pivot and stays.
    #expect(
      fixes.map(iso) == [
        "2019-04-05T12:00:00.000Z", "2019-04-05T12:00:01.000Z", "2024-03-02T13:00:00.000Z",
      ])
    #expect(decoder.statistics.warnings[NMEADecoder.rolloverWarning] == 2)
    #expect(decoder.statistics.fixes == 3)
    // 1980 needs two eras to reach 2017.
    let old = NMEAWeekRollover(pivot: pivot).corrected(
      UTCTime.date(year: 1980, month: 1, day: 6, secondsOfDay: 0).timeIntervalSince1970)
    #expect(
      old.map { UTCTime.format(Date(timeIntervalSince1970: $0)) } == "2019-04-07T00:00:00.000Z")
  }

  @Test func aLiveDecoderBringsDatesWithin512WeeksOfTheClock() throws {
    let now = UTCTime.date(year: 2026, month: 12, day: 1, secondsOfDay: 0)
    var decoder = NMEADecoder.live(file: nil, now: now)
    let fixes = try decodeAll(NMEADecoderTests.rolloverLog, with: &decoder)
    #expect(fixes.map(iso).first == "2019-04-05T12:00:00.000Z")
    for fix in fixes {
      #expect(abs(fix.time.timeIntervalSince(now)) <= NMEAWeekRollover.eraSeconds / 2)
    }
    // Against a clock in 2045, 2024 is more than 512 weeks back: one era forward.
    let later = UTCTime.date(year: 2045, month: 1, day: 1, secondsOfDay: 0)
    var future = NMEADecoder.live(file: nil, now: later)
    let moved = try decodeAll(NMEADecoderTests.rolloverLog, with: &future)
    #expect(moved.map(iso).last == "2043-10-17T13:00:00.000Z")
    #expect(moved.map(iso).first == "2038-11-19T12:00:00.000Z")
    #expect(future.statistics.warnings[NMEADecoder.rolloverWarning] == 3)
  }

  @Test func backFilledEpochsAreCorrectedToo() throws {
    let lines = [
      sentence("$GPGGA,120000,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"),
      sentence("$GPRMC,120001,A,4807.038,N,01131.000,E,0,0,200899,,"),
    ]
    let pivot = UTCTime.date(year: 2017, month: 1, day: 1, secondsOfDay: 0)
    var decoder = NMEADecoder(rollover: NMEAWeekRollover(pivot: pivot))
    let fixes = try decodeAll(lines.joined(separator: "\n"), with: &decoder)
    #expect(fixes.map(iso) == ["2019-04-05T12:00:00.000Z", "2019-04-05T12:00:01.000Z"])
    #expect(decoder.statistics.warnings[NMEADecoder.rolloverWarning] == 2)
  }

  @Test func strictModeDeliversEveryEpochBeforeTheBadRecord() throws {
    let good = (0..<5).map {
      sentence("$GPRMC,12000\($0),A,4807.038,N,01131.000,E,0,0,230394,,")
    }
    let text = (good + ["$GPRMC,120009,A,4807.038,N,01131.000,E,0,0,230394,,*00"] + good)
      .joined(separator: "\n")
    var decoder = NMEADecoder(strict: true)
    var fixes: [Fix] = []
    var failure: TraceError?
    Array(text.utf8).withUnsafeBytes { raw in
      do throws(TraceError) { try decoder.decode(raw, into: &fixes) } catch { failure = error }
    }
    #expect(failure?.line == 6)
    #expect(fixes.count == 5)
    #expect(decoder.statistics.fixes == 5)
  }

  @Test func gllAndGnsGivePositions() throws {
    let lines = [
      sentence("$GPZDA,000005,01,02,2021,00,00"),
      sentence("$GPGLL,4807.038,N,01131.000,E,000005,A,A"),
      sentence("$GNGNS,000007,4807.038,N,01131.000,E,ANNN,07,1.1,500.0,46.9,,0000,V"),
      sentence("$GNGNS,000008,4807.038,N,01131.000,E,NDAN,07,1.1,500.0,46.9,,0000"),
    ]
    let (fixes, _) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(fixes.map(iso) == ["2021-02-01T00:00:05.000Z", "2021-02-01T00:00:08.000Z"])
    #expect(fixes[1].altitudeMeters == 500)
    #expect(abs(fixes[1].horizontalAccuracyMeters! - 1.1 * 4.75) < 1e-12)
  }

  @Test func sentencesLongerThan82CharactersAreRead() throws {
    let long = sentence(
      "$GNRMC,123519.000000,A,4807.0380000000,N,01131.0000000000,E,022.400000,084.400000,"
        + "230394,003.1,W,A,S")
    #expect(long.utf8.count > 82)
    let (fixes, _) = try decodeNMEA(long + "\n")
    #expect(fixes.count == 1)
  }

  @Test func overlongLinesAreSkippedAndCounted() throws {
    let junk = String(repeating: "x", count: NMEADecoder.maximumLineLength + 10)
    let text = junk + "\n" + NMEADecoderTests.rmc + "\n"
    let (fixes, statistics) = try decodeNMEA(text, chunkSizes: [100])
    #expect(fixes.count == 1)
    #expect(statistics.skipped["line too long"] == 1)
  }

  @Test(arguments: [("010180", "1980"), ("311279", "2079"), ("010100", "2000"), ("311299", "1999")])
  func twoDigitYearsFollowThe1980PivotRule(date: String, year: String) throws {
    let rmc = sentence("$GPRMC,120000,A,0000.001,N,00000.001,E,0,0,\(date),,")
    let fix = try #require(try decodeNMEA(rmc).fixes.first)
    #expect(iso(fix).hasPrefix(year))
  }

  @Test func aZDAYearSetsTheCenturyOfLaterRMCs() throws {
    let lines = [
      sentence("$GPZDA,120000,01,01,2114,00,00"),
      sentence("$GPRMC,120001,A,0000.001,N,00000.001,E,0,0,020114,,"),
    ]
    let (fixes, _) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(fixes.map(iso) == ["2114-01-02T12:00:01.000Z"])
  }

  @Test func theDateIsCarriedToTimeOnlyEpochsAcrossMidnight() throws {
    let lines = [
      sentence("$GPRMC,235958.5,A,0000.001,N,00000.001,E,0,0,311299,,"),
      sentence("$GPGGA,235959.5,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,"),
      sentence("$GPGGA,000000.5,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,"),
      sentence("$GPGGA,000001.5,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,"),
    ]
    let (fixes, _) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(
      fixes.map(iso) == [
        "1999-12-31T23:59:58.500Z", "1999-12-31T23:59:59.500Z", "2000-01-01T00:00:00.500Z",
        "2000-01-01T00:00:01.500Z",
      ])
  }

  @Test func aSmallStepBackInTimeStaysOnTheSameDay() throws {
    let lines = [
      sentence("$GPRMC,152508,A,0000.001,N,00000.001,E,0,0,091209,,"),
      sentence("$GPGGA,143306,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,"),
    ]
    let (fixes, _) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(fixes.map(iso) == ["2009-12-09T15:25:08.000Z", "2009-12-09T14:33:06.000Z"])
  }

  @Test func undatedFixesAreBackFilledFromALaterDateAcrossMidnight() throws {
    let lines = [
      sentence("$GPGGA,235959,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,"),
      sentence("$GPGGA,000000,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,"),
      sentence("$GPGGA,000001,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,"),
      sentence("$GPZDA,000001,09,03,2019,00,00"),
    ]
    let (fixes, statistics) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(
      fixes.map(iso) == [
        "2019-03-08T23:59:59.000Z", "2019-03-09T00:00:00.000Z", "2019-03-09T00:00:01.000Z",
      ])
    #expect(statistics.fixes == 3)
  }

  @Test func withoutAnyDateFixesAreDroppedUnlessAFallbackDateIsGiven() throws {
    let gga = sentence("$GPGGA,235959,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,")
    let next = sentence("$GPGGA,000000,0000.001,N,00000.001,E,1,05,1.0,10.0,M,,M,,")
    let text = gga + "\n" + next + "\n"
    let (none, statistics) = try decodeNMEA(text)
    #expect(none.isEmpty)
    #expect(statistics.skipped["no date (use --date)"] == 2)
    let day = UTCTime.date(year: 2019, month: 3, day: 8, secondsOfDay: 0)
    let (fixes, _) = try decodeNMEA(text, fallbackDate: day)
    #expect(fixes.map(iso) == ["2019-03-08T23:59:59.000Z", "2019-03-09T00:00:00.000Z"])
  }

  @Test func outOfOrderSentencesOfOneEpochStillMerge() throws {
    let lines = [
      sentence("$GPRMC,093158.500,A,5333.4037,N,00951.9347,E,0.09,180.87,170807,,,A"),
      sentence("$GPRMC,093158.000,A,5333.4037,N,00951.9346,E,0.28,175.83,170807,,,A"),
      sentence("$GPGGA,093158.000,5333.4037,N,00951.9346,E,1,06,1.7,48.4,M,45.6,M,,"),
      sentence("$GPGGA,093158.500,5333.4037,N,00951.9347,E,1,06,1.7,48.5,M,45.6,M,,"),
      sentence("$GPRMC,093158.750,A,5333.4037,N,00951.9348,E,0.17,179.45,170807,,,A"),
    ]
    let (fixes, _) = try decodeNMEA(lines.joined(separator: "\n"))
    #expect(fixes.count == 3)
    #expect(fixes.map(\.altitudeMeters) == [48.5, 48.4, nil])
  }

  @Test func malformedFieldsAreReportedWithTheirLineInStrictMode() throws {
    let badTime = sentence("$GPRMC,12x519,A,4807.038,N,01131.000,E,0,0,230394,,")
    let badLatitude = sentence("$GPRMC,123519,A,4867.038,N,01131.000,E,0,0,230394,,")
    let badHemisphere = sentence("$GPRMC,123519,A,4807.038,Q,01131.000,E,0,0,230394,,")
    for (text, reason) in [
      (badTime, "bad time"), (badLatitude, "bad latitude"), (badHemisphere, "bad latitude"),
    ] {
      let (fixes, statistics) = try decodeNMEA(text)
      #expect(fixes.isEmpty)
      #expect(statistics.skipped[reason] == 1)
      #expect(throws: TraceError.self) { try decodeNMEA("x\n" + text, strict: true) }
    }
    do {
      var decoder = NMEADecoder(file: "a.nmea", strict: true)
      _ = try decodeAll(NMEADecoderTests.rmc + "\n" + badTime, with: &decoder)
      Issue.record("strict mode should have thrown")
    } catch {
      #expect(error.description.hasPrefix("a.nmea:2: bad time: 12x519"))
    }
  }

  @Test func chunkBoundariesNeverChangeTheResult() throws {
    var lines: [String] = []
    var rng = SplitMix64(seed: 42)
    for second in 0..<200 {
      let t = String(format: "%02d%02d%02d.%02d", 10, second / 60, second % 60, second % 7)
      let lat = String(format: "%02d%07.4f", 10 + second % 70, Double(second % 60))
      lines.append(sentence("$GPRMC,\(t),A,\(lat),N,01131.000,E,1.0,2.0,230394,,"))
      lines.append(sentence("$GPGGA,\(t),\(lat),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,"))
      if second % 13 == 0 { lines.append("garbage \(second)") }
      if second % 17 == 0 { lines.append(sentence("$GPGSV,3,1,12,01,02,03,04")) }
    }
    let text = lines.joined(separator: "\r\n")
    let whole = try decodeNMEA(text)
    #expect(whole.fixes.count == 200)
    for _ in 0..<25 {
      let sizes = (0..<8).map { _ in Int.random(in: 1...300, using: &rng) }
      let chunked = try decodeNMEA(text, chunkSizes: sizes)
      #expect(chunked.fixes == whole.fixes)
      #expect(chunked.statistics == whole.statistics)
    }
  }

  @Test func randomBytesNeverCrashOrYieldInvalidPositions() throws {
    var rng = SplitMix64(seed: 7)
    let seedText = [NMEADecoderTests.rmc, NMEADecoderTests.gga, NMEADecoderTests.gsa].joined(
      separator: "\n")
    let alphabet = Array("$!*,.0123456789ANSEWV-\r\n".utf8)
    for _ in 0..<2000 {
      var bytes = Array(seedText.utf8)
      for _ in 0..<Int.random(in: 1...8, using: &rng) {
        let i = Int.random(in: 0..<bytes.count, using: &rng)
        switch rng.next() % 3 {
        case 0: bytes[i] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
        case 1: bytes.remove(at: i)
        default: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: i)
        }
      }
      var decoder = NMEADecoder()
      var fixes: [Fix] = []
      try bytes.withUnsafeBufferPointer { (chunk) throws(TraceError) in
        try decoder.decode(UnsafeRawBufferPointer(chunk), into: &fixes)
      }
      try decoder.finish(into: &fixes)
      for fix in fixes {
        #expect(fix.coordinate.latitude.magnitude <= 90)
        #expect(fix.coordinate.longitude.magnitude <= 180)
      }
    }
  }
}
