import Foundation
import Testing
import TextRules

@testable import MissionTracking

@Suite struct EventJSONTests {
  private let time = Date(timeIntervalSince1970: 1_714_557_600)

  @Test func aFixEventCarriesPositionDistanceAndTravelled() throws {
    let fix = Fix(
      time: time, coordinate: try Coordinate(latitude: 59.5, longitude: 17.25), source: "gpx",
      horizontalAccuracyMeters: 4.5)
    let event = TrackingEvent(
      time: time, missionID: "42",
      kind: .fix(fix, distanceToMissionMeters: 120.5, travelledMeters: 10))
    #expect(
      event.jsonLine
        == #"{"type":"fix","time":"2024-05-01T10:00:00.000Z","mission_id":"42","lat":59.5,"#
        + #""lon":17.25,"eph_m":4.5,"distance_m":120.5,"travelled_m":10.0}"#)
  }

  @Test func stateAndSourceEventsNameTheirFields() {
    let state = TrackingEvent(
      time: time, missionID: "m1", kind: .state(from: .active, to: .arrived))
    #expect(state.jsonLine.hasSuffix(#""mission_id":"m1","from":"active","to":"arrived"}"#))
    let source = TrackingEvent(
      time: time, missionID: "m1", kind: .source(.noFix, detail: "receiver has no fix"))
    #expect(source.jsonLine.contains(#""type":"source""#))
    #expect(source.jsonLine.contains(#""status":"no_fix","detail":"receiver has no fix""#))
  }

  @Test func stringsAreEscapedAndNonFiniteNumbersAreNull() {
    var json = JSONObjectWriter()
    json.add("title", "say \"hi\"\n\\ \u{1}")
    json.add("x", Double.nan)
    #expect(json.result == #"{"title":"say \"hi\"\n\\ \u0001","x":null}"#)
    let parsed = try? JSONSerialization.jsonObject(with: Data(json.result.utf8))
    #expect(parsed != nil)
  }
}
