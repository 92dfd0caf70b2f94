import Foundation
import Testing
import TextRules
import TraceFormats

@Suite struct TraceOutageTests {
  @Test func startAndLengthAreDecimalNumbersOrAnRFC3339Start() throws {
    #expect(
      try TraceOutage(parsing: "120+30")
        == TraceOutage(start: .secondsAfterFirstFix(120), durationSeconds: 30))
    #expect(
      try TraceOutage(parsing: "1.5e2+2.5")
        == TraceOutage(start: .secondsAfterFirstFix(150), durationSeconds: 2.5))
    let time = try #require(UTCTime.parse("2026-05-04T10:12:00Z")).date
    #expect(
      try TraceOutage(parsing: "2026-05-04T10:12:00Z+30")
        == TraceOutage(start: .time(time), durationSeconds: 30))
  }

  /// `Double(_:)` alone reads hexadecimal (`0x10` is 16, `0x1p4` is 16 too), `inf` and
  /// `nan`; the shared decimal grammar does not, whichever side of the `+` they are on.
  @Test(arguments: ["0x10+0x1p4", "0x10+5", "10+0x1p4", "10+0X1P4", "inf+5", "10+nan", " 10+5"])
  func nonDecimalNumbersAreRefused(text: String) {
    #expect(throws: TraceError.self) { try TraceOutage(parsing: text) }
  }
}
