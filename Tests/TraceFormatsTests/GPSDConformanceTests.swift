import Foundation
import MissionTracking
import Testing
import TextRules

@testable import TraceFormats

/// Our NMEA decoding against gpsd 3.22's own output (`.chk`) for its regression logs.
///
/// For every log, each gpsd TPV that has `lat`, `lon` and `time` must match our fix with that
/// time (gpsd's *last* TPV for a time is the reference): latitude and longitude within 1e-7°
/// and, in fact, the same `%.9f` digits; time to the millisecond. gpsd moves dates before 2017
/// forward by 1024 GPS weeks (its WKRO correction), we do not, so times are compared modulo
/// 1024 weeks. Every deliberate difference is listed in `differences` with its reason.
@Suite(
  "gpsd NMEA conformance",
  .enabled(if: Reference.isPresent, "../shared/reference is absent: conformance tests skipped"))
struct GPSDConformanceTests {
  /// 1024 GPS weeks in milliseconds (gpsd 3.22's rollover correction of pre-2017 dates).
  static let weekRolloverMillis: Int64 = 619_315_200_000

  /// Why we decode an epoch gpsd's `.chk` has no timed position for, or the reverse.
  enum Reason: String {
    /// gpsd prints no TPV (or one without `time`) for the first epoch(s) of a log, while its
    /// end-of-cycle detection locks on or before its first RMC/ZDA date; we date those
    /// epochs by back-filling from the first date and report them.
    case gpsdStartUp = "gpsd start-up: no dated TPV for the first epoch(s); we back-fill"
    /// gpsd reports a cycle when the next one starts, so the log's last epoch (or the last one
    /// before a spliced capture jumps back in time) never gets a TPV; we report every epoch.
    case gpsdLastEpoch = "gpsd reports no TPV for the last epoch before the log ends or jumps"
    /// gpsd rejects the malformed RMC date `2208-1` and prints that TPV without a time; we
    /// carry the next RMC's date back to it.
    case malformedDateBackFilled = "RMC date malformed: gpsd leaves it undated, we back-fill"
    /// gpsd advances the day whenever the hour decreases between sentences (bt451's captures
    /// are spliced 52 min back in time), so it dates one fix a day later; we keep the day
    /// unless the time of day jumps back by more than 12 h.
    case gpsdHourWrapHeuristic = "gpsd moves the day on any hour decrease; we need > 12 h"
  }

  /// Per log: time of day (`HH:MM:SS.sss`) of our fixes gpsd has no timed TPV for (`extra`),
  /// and of gpsd TPV times we do not produce (`missing`), each with its reason.
  static let differences: [String: (extra: [String: Reason], missing: [String: Reason])] = [
    "april6_2019.log": (["00:02:31.099": .malformedDateBackFilled], [:]),
    "beidou-bd.log": (["07:41:55.799": .gpsdStartUp], [:]),
    "bt451.log": (
      [
        "14:33:06.000": .gpsdHourWrapHeuristic, "15:25:04.500": .gpsdStartUp,
        "15:25:08.500": .gpsdLastEpoch, "14:33:08.500": .gpsdLastEpoch,
      ],
      ["14:33:06.000": .gpsdHourWrapHeuristic]
    ),
    "garmin48.log": (["22:53:09.000": .gpsdStartUp], [:]),
    "gp-320fw-2019-04-06-overflow.log": (
      ["23:57:23.020": .gpsdStartUp, "23:57:26.020": .gpsdStartUp], [:]
    ),
    "haicom-305N.log": (["09:53:04.802": .gpsdStartUp], [:]),
    "humminbird-M37.log": (["19:41:02.000": .gpsdStartUp, "19:41:04.000": .gpsdStartUp], [:]),
    "isync.log": (["13:15:30.000": .gpsdLastEpoch], [:]),
    "mtk-3301.log": (["08:14:36.000": .gpsdStartUp], [:]),
    "rgm3800.log": (["10:25:23.342": .gpsdStartUp], [:]),
    "rst39.log": (["20:41:32.100": .gpsdStartUp], [:]),
  ]

  struct GPSDPosition {
    var latitudeText: Substring
    var longitudeText: Substring
  }

  /// gpsd's last TPV with lat/lon/time for each time, keyed by milliseconds modulo 1024 weeks.
  static func gpsdPositions(_ chk: URL) throws -> [Int64: GPSDPosition] {
    let text = try String(contentsOf: chk, encoding: .isoLatin1)
    var result: [Int64: GPSDPosition] = [:]
    for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
      guard let time = member(line, "time"), let lat = member(line, "lat"),
        let lon = member(line, "lon")
      else { continue }
      let unquoted = time.dropFirst().dropLast()
      let date = try #require(UTCTime.parse(unquoted)?.date)
      result[key(date)] = GPSDPosition(latitudeText: lat, longitudeText: lon)
    }
    return result
  }

  static func member(_ line: Substring, _ name: String) -> Substring? {
    guard let range = line.range(of: "\"\(name)\":") else { return nil }
    let rest = line[range.upperBound...]
    let end = rest.firstIndex { $0 == "," || $0 == "}" } ?? rest.endIndex
    return rest[..<end]
  }

  static func key(_ date: Date) -> Int64 {
    let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
    return millis % weekRolloverMillis
  }

  static func timeOfDay(_ key: Int64) -> String {
    String(UTCTime.format(Date(timeIntervalSince1970: Double(key) / 1000)).dropFirst(11).dropLast())
  }

  static var logs: [URL] { Reference.files(in: "gpsd-nmea", withExtension: "log") }

  @Test func everyGpsdLogIsPresent() {
    #expect(GPSDConformanceTests.logs.count == 25)
  }

  @Test(arguments: GPSDConformanceTests.logs)
  func decodedFixesMatchGpsdPositions(log: URL) throws {
    let name = log.lastPathComponent
    let reader = try TraceReader(path: log.path)
    var ours: [Int64: [Fix]] = [:]
    try reader.forEachBatch { batch in
      for fix in batch { ours[GPSDConformanceTests.key(fix.time), default: []].append(fix) }
    }
    #expect(reader.format == .nmea)
    let gpsd = try GPSDConformanceTests.gpsdPositions(
      log.appendingPathExtension("chk"))
    let expected = GPSDConformanceTests.differences[name] ?? ([:], [:])
    var extra: [String] = []
    var missing: [String] = []
    for (time, position) in gpsd {
      guard let fixes = ours[time] else {
        missing.append(GPSDConformanceTests.timeOfDay(time))
        continue
      }
      let latitude = Double(position.latitudeText)!
      let longitude = Double(position.longitudeText)!
      let close = fixes.contains {
        abs($0.coordinate.latitude - latitude) <= 1e-7
          && abs($0.coordinate.longitude - longitude) <= 1e-7
      }
      #expect(
        close, "\(name) \(GPSDConformanceTests.timeOfDay(time)): gpsd \(latitude), \(longitude)")
      // gpsd prints %.9f; our conversion reproduces its digits exactly.
      let sameDigits = fixes.contains {
        String(format: "%.9f", $0.coordinate.latitude) == position.latitudeText
          && String(format: "%.9f", $0.coordinate.longitude) == position.longitudeText
      }
      #expect(sameDigits, "\(name) \(GPSDConformanceTests.timeOfDay(time)): %.9f digits differ")
    }
    for time in ours.keys where gpsd[time] == nil {
      extra.append(GPSDConformanceTests.timeOfDay(time))
    }
    #expect(extra.sorted() == expected.extra.keys.sorted(), "\(name): fixes gpsd has no TPV for")
    #expect(missing.sorted() == expected.missing.keys.sorted(), "\(name): gpsd TPVs we lack")
  }

  /// gpsd's TPV times (with lat/lon), in milliseconds, as printed: after its WKRO correction.
  static func gpsdTimes(_ chk: URL) throws -> Set<Int64> {
    let text = try String(contentsOf: chk, encoding: .isoLatin1)
    var result: Set<Int64> = []
    for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("{\"class\":\"TPV\"") {
      guard let time = member(line, "time"), member(line, "lat") != nil else { continue }
      let date = try #require(UTCTime.parse(time.dropFirst().dropLast())?.date)
      result.insert(Int64((date.timeIntervalSince1970 * 1000).rounded()))
    }
    return result
  }

  @Test(arguments: GPSDConformanceTests.logs)
  func withGpsdsRolloverPivotTheTimesAreGpsdsExactly(log: URL) throws {
    let name = log.lastPathComponent
    let pivot = UTCTime.date(year: 2017, month: 1, day: 1, secondsOfDay: 0)
    let reader = try TraceReader(path: log.path, rollover: NMEAWeekRollover(pivot: pivot))
    var ours: Set<Int64> = []
    let statistics = try reader.forEachBatch { batch in
      for fix in batch { ours.insert(Int64((fix.time.timeIntervalSince1970 * 1000).rounded())) }
    }
    let gpsd = try GPSDConformanceTests.gpsdTimes(log.appendingPathExtension("chk"))
    let expected = GPSDConformanceTests.differences[name] ?? ([:], [:])
    let extra = ours.subtracting(gpsd).map(GPSDConformanceTests.timeOfDay).sorted()
    let missing = gpsd.subtracting(ours).map(GPSDConformanceTests.timeOfDay).sorted()
    #expect(extra == expected.extra.keys.sorted(), "\(name): fixes gpsd has no TPV for")
    #expect(missing == expected.missing.keys.sorted(), "\(name): gpsd TPVs we lack")
    let moved = statistics.warnings[NMEADecoder.rolloverWarning] ?? 0
    #expect(moved <= statistics.fixes)
  }

  @Test func gpsdLogsWithoutADateGiveNoFixesUnlessDated() throws {
    let sounder = Reference.root.appendingPathComponent("gpsd-nmea/sounder.log")
    let undated = try TraceReader(path: sounder.path)
    var count = 0
    let statistics = try undated.forEachBatch { count += $0.count }
    #expect(count == 0)
    #expect(statistics.skipped["no date (use --date)"] == 121 + 1)
    let day = UTCTime.date(year: 2010, month: 1, day: 2, secondsOfDay: 0)
    let dated = try TraceReader(path: sounder.path, fallbackDate: day)
    var fixes: [Fix] = []
    try dated.forEachBatch { fixes += $0 }
    #expect(fixes.count == 122)
    #expect(fixes.allSatisfy { $0.mode == .twoD })
    #expect(iso(fixes[0]).hasPrefix("2010-01-02T16:43:26"))
  }

  @Test func strictModeStopsAtGpsdsFirstBadChecksum() throws {
    let log = Reference.root.appendingPathComponent("gpsd-nmea/firefly-II.log")
    let reader = try TraceReader(path: log.path, strict: true)
    #expect {
      try reader.forEachBatch { _ in }
    } throws: { error in
      guard let error = error as? TraceError else { return false }
      return error.file == log.path && error.line != nil
        && error.reason.hasPrefix("bad checksum")
    }
  }
}
