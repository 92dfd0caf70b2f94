import Foundation
import MissionTracking
import Testing
import TextRules

@testable import Ingest

/// An Overland feature with the properties Overland always sends.
func overlandFeature(
  lon: String = "-122.030581", lat: String = "37.3318",
  timestamp: String = "2015-10-01T08:00:00-0700",
  extra: String = ""
) -> String {
  #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
    + lon + "," + lat + #"]},"properties":{"timestamp":""# + timestamp
    + #"","horizontal_accuracy":30,"speed":4"# + extra + "}}"
}

@Suite struct OverlandDecoderTests {
  // Source: aaronpk/Overland-iOS README.md, "API" (the request body; its `"current": { ... }`
  // and `"trip"` placeholders are not JSON and are left out).
  @Test func readmeExampleDecodes() throws {
    let body = """
      {
        "locations": [
          {
            "type": "Feature",
            "geometry": {
              "type": "Point",
              "coordinates": [
                -122.030581, 
                37.331800
              ]
            },
            "properties": {
              "timestamp": "2015-10-01T08:00:00-0700",
              "altitude": 0,
              "speed": 4,
              "horizontal_accuracy": 30,
              "vertical_accuracy": -1,
              "motion": ["driving","stationary"],
              "pauses": false,
              "activity": "other_navigation",
              "desired_accuracy": 100,
              "deferred": 1000,
              "significant_change": "disabled",
              "locations_in_payload": 1,
              "battery_state": "charging",
              "battery_level": 0.80,
              "device_id": "",
              "wifi": ""
            }
          }
        ]
      }
      """
    let batch = try OverlandDecoder.decode(
      request(headers: [("Authorization", "Bearer xxxxxx")], body: body))
    #expect(batch.identity == .unnamed && batch.secret == "xxxxxx")
    let fix = try #require(onlyFix(batch))
    #expect(fix.coordinate.latitude == 37.3318 && fix.coordinate.longitude == -122.030581)
    #expect(fix.time == Date(timeIntervalSince1970: 1_443_711_600))
    #expect(fix.speedMetersPerSecond == 4 && fix.horizontalAccuracyMeters == 30)
    // vertical_accuracy -1: CoreLocation's "altitude invalid".
    #expect(fix.altitudeMeters == nil && fix.source == "overland")
    #expect(batch.unknownDevice().status == 401)
  }

  @Test(arguments: [
    ("2015-10-01T08:00:00-0700", 1_443_711_600.0), ("2015-10-01T08:00:00-07:00", 1_443_711_600.0),
    ("2015-10-01T15:00:00Z", 1_443_711_600.0), ("2015-10-01T17:00:00+02:00", 1_443_711_600.0),
  ])
  func timestampsWithAnOffsetWithOrWithoutAColon(text: String, seconds: Double) throws {
    let body = #"{"locations":["# + overlandFeature(timestamp: text) + "]}"
    let fix = try #require(onlyFix(try OverlandDecoder.decode(request(body: body))))
    #expect(fix.time == Date(timeIntervalSince1970: seconds))
  }

  @Test func oneBadPointMidBatchIsCountedAndTheRestKept() throws {
    let points = [
      overlandFeature(lat: "37.1"), overlandFeature(lat: "91"), overlandFeature(lat: "37.3"),
      overlandFeature(timestamp: "2015-10-01T08:00:00"), overlandFeature(lon: "\"x\""),
      overlandFeature(lat: "37.6"),
    ]
    let batch = try OverlandDecoder.decode(
      request(body: "{\"locations\":[\n" + points.joined(separator: ",\n") + "]}"))
    #expect(batch.positions.map(\.fix.coordinate.latitude) == [37.1, 37.3, 37.6])
    #expect(batch.rejected.map(\.index) == [1, 3, 4])
    #expect(batch.rejected.map(\.line) == [3, 5, 6])
    #expect(batch.rejected[0].reason.contains("latitude 91"))
    #expect(batch.rejected[1].reason.contains("with a zone"))
  }

  @Test func theDeviceIdNamesTheDeviceAndTwoDevicesAreRefused() throws {
    let one = try OverlandDecoder.decode(
      request(
        body: #"{"locations":["# + overlandFeature(extra: #","device_id":"pixel""#) + ","
          + overlandFeature(extra: #","device_id":"""#) + "]}"))
    #expect(one.identity == .device("pixel") && one.positions.count == 2)
    #expect {
      try OverlandDecoder.decode(
        request(
          body: #"{"locations":["# + overlandFeature(extra: #","device_id":"a""#) + ","
            + overlandFeature(extra: #","device_id":"b""#) + "]}"))
    } throws: { ($0 as? IngestError)?.status == 400 }
    #expect {
      try OverlandDecoder.decode(
        request(body: #"{"locations":["# + overlandFeature(extra: #","device_id":"\u0007""#) + "]}")
      )
    } throws: { ($0 as? IngestError)?.message.contains("control character") == true }
  }

  @Test func actionFeaturesAreIgnored() throws {
    let log =
      #"{"type":"Feature","properties":{"timestamp":"2015-10-01T15:00:00Z","action":"pause"}}"#
    let batch = try OverlandDecoder.decode(
      request(body: #"{"locations":["# + log + "," + overlandFeature() + "]}"))
    #expect(batch.ignored == 1 && batch.positions.count == 1 && batch.rejected.isEmpty)
  }

  @Test(arguments: [
    "", "{", #"{"locations":"#, #"{"locations":{}}"#, #"[{"type":"Feature"}]"#, #"{"points":[]}"#,
  ])
  func aBodyThatIsNoBatchIsA400(body: String) {
    #expect {
      try OverlandDecoder.decode(request(body: body))
    } throws: { ($0 as? IngestError)?.status == 400 }
  }

  @Test func anEmptyBatchHasNoPositions() throws {
    let batch = try OverlandDecoder.decode(request(body: #"{"locations":[]}"#))
    #expect(batch.positions.isEmpty && batch.rejected.isEmpty)
  }

  @Test func aBatchOf100000PointsKeepsEveryPointInOrder() throws {
    var body = #"{"locations":["#
    for index in 0..<100_000 {
      if index > 0 { body += "," }
      body += overlandFeature(
        lon: "17.\(index)", lat: "59.5",
        timestamp: UTCTime.format(Date(timeIntervalSince1970: 1_767_225_600 + Double(index))))
    }
    body += "]}"
    let batch = try OverlandDecoder.decode(request(body: body))
    try #require(batch.positions.count == 100_000 && batch.rejected.isEmpty)
    #expect(batch.positions[99_999].fix.coordinate.longitude == Double("17.99999"))
    #expect(
      batch.positions[99_999].fix.time.timeIntervalSince(batch.positions[0].fix.time) == 99_999)
  }
}
