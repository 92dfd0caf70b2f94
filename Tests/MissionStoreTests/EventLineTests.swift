import Foundation
import MissionTracking
import Testing
import TextRules

/// The store keeps each event's JSON line; these pin the (optimised) writer's exact output.
@Suite struct EventLineTests {
  /// The straightforward formatter the fast one must match.
  private func referenceFormat(_ date: Date) -> String {
    let millis = Int((date.timeIntervalSince1970 * 1000).rounded())
    var days = millis / 86_400_000
    var ofDay = millis % 86_400_000
    if ofDay < 0 {
      ofDay += 86_400_000
      days -= 1
    }
    let (y, mo, d) = UTCTime.civilFromDays(days)
    return String(
      format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", y, mo, d, ofDay / 3_600_000,
      ofDay / 60_000 % 60, ofDay / 1000 % 60, ofDay % 1000)
  }

  @Test func timesFormatLikeTheReferenceAcrossCenturies() {
    var generator = SplitMix64(seed: 2024)
    let fixed: [Double] = [0, -0.0004, -1, 951_782_400, 1_709_251_199.9996, 253_402_300_799.999]
    let random = (0..<2000).map { _ in
      Double.random(in: -2_000_000_000...253_402_300_799, using: &generator)
    }
    for seconds in fixed + random {
      let date = Date(timeIntervalSince1970: seconds)
      #expect(UTCTime.format(date) == referenceFormat(date), "\(seconds)")
    }
    #expect(UTCTime.format(Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00.000Z")
  }

  @Test func stringsAreEscapedPerRFC8259() {
    var json = JSONObjectWriter()
    json.add("s", "a\"b\\c\nd\re\tf\u{01}g\u{1F}é😀")
    json.add("n", 1.5)
    json.add("inf", Double.infinity)
    json.add("i", -3)
    json.add("b", false)
    json.addIfPresent("absent", nil as Double?)
    json.addRaw("raw", json: "[1,2]")
    #expect(
      json.result
        == #"{"s":"a\"b\\c\nd\re\tf\u0001g\u001fé😀","n":1.5,"inf":null,"i":-3,"b":false,"raw":[1,2]}"#
    )
    var text = "x"
    JSONObjectWriter.appendQuoted("q\"\u{0}", to: &text)
    #expect(text == #"x"q\"\u0000""#)
  }

  @Test func aFixEventLineHasTheDocumentedShape() throws {
    let fix = Fix(
      time: Date(timeIntervalSince1970: 1_714_557_600.25),
      coordinate: try Coordinate(latitude: 59.3293, longitude: 18.0686), source: "nmea",
      altitudeMeters: 12, horizontalAccuracyMeters: 3.5)
    let event = TrackingEvent(
      time: fix.time, missionID: "m-1",
      kind: .fix(fix, distanceToMissionMeters: 120.5, travelledMeters: 0))
    #expect(
      event.jsonLine
        == #"{"type":"fix","time":"2024-05-01T10:00:00.250Z","mission_id":"m-1","lat":59.3293,"lon":18.0686,"alt_m":12.0,"eph_m":3.5,"distance_m":120.5,"travelled_m":0.0}"#
    )
  }
}
