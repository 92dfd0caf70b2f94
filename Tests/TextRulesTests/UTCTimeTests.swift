import Foundation
import Testing

@testable import TextRules

@Suite struct UTCTimeTests {
  @Test func formatsWithMillisecondsAndZ() {
    #expect(UTCTime.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000Z")
    #expect(
      UTCTime.format(Date(timeIntervalSince1970: 1_714_557_600.25)) == "2024-05-01T10:00:00.250Z")
    #expect(UTCTime.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500Z")
  }

  @Test func civilDateRoundTripsOverFourCenturies() {
    for days in stride(from: -146_097, through: 146_097 * 2, by: 37) {
      let (y, m, d) = UTCTime.civilFromDays(days)
      #expect(UTCTime.daysFromCivil(year: y, month: m, day: d) == days)
    }
    #expect(UTCTime.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
  }

  @Test(arguments: [
    ("2024-05-01T10:00:00Z", 1_714_557_600.0, true),
    ("2024-05-01T10:00:00.25Z", 1_714_557_600.25, true),
    ("2024-05-01T12:00:00+02:00", 1_714_557_600.0, true),
    ("2024-05-01T05:30:00-0430", 1_714_557_600.0, true),
    ("2024-05-01 10:00:00.1234567z", 1_714_557_600.1234567, true),
    ("2024-05-01T10:00:00", 1_714_557_600.0, false),
  ])
  func parsesRFC3339Variants(_ text: String, _ seconds: Double, _ hadZone: Bool) throws {
    let parsed = try #require(UTCTime.parse(text))
    #expect(abs(parsed.date.timeIntervalSince1970 - seconds) < 1e-6)
    #expect(parsed.hadZone == hadZone)
  }

  @Test(arguments: [
    "", "2024-13-01T00:00:00Z", "2024-05-01", "2024-05-01T25:00:00Z", "2024-05-01T10:00:00.Z",
    "2024-05-01T10:00:00Zjunk", "2024-05-01T10:00:00+2",
  ])
  func rejectsMalformedTimes(_ text: String) {
    #expect(UTCTime.parse(text) == nil)
  }
}

@Suite struct UTCTimeCalendarTests {
  @Test(arguments: [
    "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z",
    "2024-04-31T00:00:00Z", "2024-06-31T00:00:00Z", "2024-09-31T00:00:00Z",
    "2024-11-31T00:00:00Z", "2024-01-32T00:00:00Z",
  ])
  func impossibleDatesAreRefusedInsteadOfRollingOver(text: String) {
    #expect(UTCTime.parse(text) == nil)
  }

  @Test(arguments: [
    "2024-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2023-02-28T23:59:59Z",
    "2024-04-30T00:00:00Z", "2024-12-31T23:59:60Z",
  ])
  func realDatesStillParse(text: String) {
    #expect(UTCTime.parse(text) != nil)
  }
}
