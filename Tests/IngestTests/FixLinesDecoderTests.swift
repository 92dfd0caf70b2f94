import Foundation
import MissionTracking
import Testing
import TraceFormats

@testable import Ingest

@Suite struct FixLinesDecoderTests {
  /// Fixes written by the writer of `missiontrack decode` (TraceFormats' `FixJSONLinesWriter`):
  /// what `decode … | curl --data-binary @-` posts.
  private static let written: [Fix] = [
    Fix(
      time: Date(timeIntervalSince1970: 1_714_557_600.25),
      coordinate: Coordinate(uncheckedLatitude: 59.8586, longitude: 17.6389), mode: .threeD,
      source: "nmea", altitudeMeters: 12.5, horizontalAccuracyMeters: 3.2,
      speedMetersPerSecond: 1.4, courseDegrees: 270.5),
    Fix(
      time: Date(timeIntervalSince1970: 1_714_557_601),
      coordinate: Coordinate(uncheckedLatitude: -33.9, longitude: 151.2), mode: .twoD,
      source: "gpx"),
  ]

  @Test func decodeOutputFeedsAWorker() throws {
    var text = ""
    FixJSONLinesWriter.append(Self.written, to: &text)
    let batch = try FixLinesDecoder.decode(
      request(query: "worker=w%201", headers: [("Authorization", "Bearer tok")], body: text))
    #expect(batch.identity == .worker("w 1") && batch.secret == "tok")
    var expected = Self.written
    for index in expected.indices { expected[index].source = "native" }
    #expect(batch.positions.map(\.fix) == expected)
    #expect(batch.rejected.isEmpty)
  }

  @Test func aBadLineIsCountedWithItsLineNumberAndSkipped() throws {
    let body = [
      #"{"time":"2024-05-01T10:00:00.000Z","lat":1,"lon":2,"mode":3,"source":"nmea"}"#,
      "",
      #"{"time":"2024-05-01T10:00:01.000Z","lat":91,"lon":2,"mode":3,"source":"nmea"}"#,
      #"{"time":"2024-05-01T10:00:02.000Z","lat":1,"lon":2,"mode":1,"source":"nmea"}"#,
      #"{"time":"2024-05-01T10:00:03.000Z","lat":1,"lon":"#,
      #"{"lat":1,"lon":2,"mode":3,"source":"gpx","kind":"waypoint"}"#,
      #"{"lat":1,"lon":2,"mode":3,"source":"gpx"}"#,
      #"{"time":"2024-05-01T10:00:04Z","lat":1.5,"lon":2,"mode":7}"#,
      "\r",
      #"{"time":"2024-05-01T10:00:05+02:00","lat":1.5,"lon":2.5,"eph_m":-1}"# + "\r",
    ].joined(separator: "\n")
    let batch = try FixLinesDecoder.decode(request(query: "worker=w", body: body))
    #expect(batch.positions.count == 2 && batch.ignored == 1)
    #expect(batch.positions[1].fix.horizontalAccuracyMeters == nil)
    #expect(batch.positions[1].fix.time == Date(timeIntervalSince1970: 1_714_550_405))
    #expect(batch.rejected.map(\.line) == [3, 4, 5, 7, 8])
    #expect(batch.rejected.map(\.index) == [1, 2, 3, 5, 6])
    #expect(batch.rejected[1].reason.contains("no fix"))
  }

  @Test(arguments: ["", "worker=", "worker=a%0Ab", "w=x"])
  func aMissingOrBadWorkerIsA400(query: String) {
    #expect {
      try FixLinesDecoder.decode(request(query: query, body: "\n"))
    } throws: { ($0 as? IngestError)?.status == 400 }
  }

  @Test func anEmptyBodyHasNoPositions() throws {
    let batch = try FixLinesDecoder.decode(request(query: "worker=w"))
    #expect(batch.positions.isEmpty && batch.rejected.isEmpty)
    #expect(batch.unknownDevice().status == 404)
  }
}
