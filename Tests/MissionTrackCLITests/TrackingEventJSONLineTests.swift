import Foundation
import MissionProximity
import MissionTracking
import Testing

@testable import MissionTrackCLI

/// Reading stored event lines back (what `report` draws from).
@Suite struct TrackingEventJSONLineTests {
  static let time = Date(timeIntervalSince1970: 1_777_889_572.25)

  static func fix() throws -> Fix {
    Fix(
      time: time, coordinate: try Coordinate(latitude: 59.61708, longitude: 17.72185),
      source: "store", altitudeMeters: 12.5, horizontalAccuracyMeters: 4,
      speedMetersPerSecond: 1.4, courseDegrees: 250)
  }

  static func kinds() throws -> [TrackingEvent.Kind] {
    [
      .fix(try fix(), distanceToMissionMeters: 12.25, travelledMeters: 340.5),
      .enter(fenceID: "sig-104", distanceMeters: 38.5, initial: true),
      .dwell(fenceID: "m1", dwellSeconds: 60),
      .exit(fenceID: "m1", distanceMeters: 70.25),
      .crossed(fenceID: "m1", closestDistanceMeters: 12),
      .state(from: .active, to: .arrived),
      .source(.gap, detail: "gap of 12.0 s"),
      .source(.ended, detail: ""),
      .rejected(reason: "outlier", count: 3),
    ]
  }

  @Test func everyKindReadsBackToTheSameLine() throws {
    for kind in try Self.kinds() {
      let event = TrackingEvent(time: Self.time, missionID: "m1", kind: kind)
      let back = try #require(TrackingEvent(jsonLine: event.jsonLine), "\(event.jsonLine)")
      #expect(back.jsonLine == event.jsonLine)
      #expect(back.missionID == "m1")
      #expect(back.type == event.type)
    }
  }

  @Test(arguments: [
    "", "not json", "[]", #"{"type":"fix","mission_id":"m"}"#,
    #"{"type":"teleport","time":"2026-05-04T10:00:00Z","mission_id":"m"}"#,
    #"{"type":"state","time":"2026-05-04T10:00:00Z","mission_id":"m","from":"x","to":"open"}"#,
    #"{"type":"fix","time":"2026-05-04T10:00:00Z","mission_id":"m","lat":95,"lon":0}"#,
  ])
  func linesThatAreNotEventsAreRefused(line: String) {
    #expect(TrackingEvent(jsonLine: line) == nil)
  }
}
