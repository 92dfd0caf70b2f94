import Foundation
import MissionTracking
import Testing
import TextRules
import TraceFormats

/// GeoJSONWriter: RFC 7946 shapes, longitude first, times alongside.
struct GeoJSONWriterTests {
  static func parse(_ text: String) throws -> [String: Any] {
    try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  @Test func aTrackIsOneLineStringFeatureWithLongitudeFirstAndItsTimes() throws {
    let fixes = GPXWriterTests.sampleFixes(count: 25, seed: 7)
    let object = try Self.parse(GeoJSONWriter.document(for: fixes, name: "run \"1\""))
    #expect(object["type"] as? String == "Feature")
    let geometry = try #require(object["geometry"] as? [String: Any])
    #expect(geometry["type"] as? String == "LineString")
    let coordinates = try #require(geometry["coordinates"] as? [[Double]])
    #expect(coordinates.count == 25)
    for (position, fix) in zip(coordinates, fixes) {
      #expect(abs(position[0] - fix.coordinate.longitude) <= 5e-8)
      #expect(abs(position[1] - fix.coordinate.latitude) <= 5e-8)
      #expect(position.count == (fix.altitudeMeters == nil ? 2 : 3))
    }
    let properties = try #require(object["properties"] as? [String: Any])
    #expect(properties["name"] as? String == "run \"1\"")
    let times = try #require(
      (properties["coordinateProperties"] as? [String: Any])?["times"] as? [String])
    #expect(times == fixes.map { UTCTime.format($0.time) })
  }

  @Test func oneFixIsAPointAndNoFixIsNullGeometry() throws {
    let fix = GPXWriterTests.sampleFixes(count: 1, seed: 8)[0]
    let one = try Self.parse(GeoJSONWriter.document(for: [fix]))
    let geometry = try #require(one["geometry"] as? [String: Any])
    #expect(geometry["type"] as? String == "Point")
    #expect(
      (geometry["coordinates"] as? [Double])?.first == (fix.coordinate.longitude * 1e7).rounded()
        / 1e7)
    let none = try Self.parse(GeoJSONWriter.document(for: []))
    #expect(none["geometry"] is NSNull)
  }

  @Test func pointsLayoutIsAFeatureCollectionWithDecodeKeys() throws {
    let fixes = GPXWriterTests.sampleFixes(count: 4, seed: 9)
    let object = try Self.parse(GeoJSONWriter.document(for: fixes, layout: .points))
    #expect(object["type"] as? String == "FeatureCollection")
    let features = try #require(object["features"] as? [[String: Any]])
    #expect(features.count == 4)
    let properties = try #require(features[1]["properties"] as? [String: Any])
    #expect(properties["time"] as? String == UTCTime.format(fixes[1].time))
    #expect(properties["mode"] as? Int == fixes[1].mode.rawValue)
    #expect(properties["sat"] as? Int == fixes[1].satellitesUsed)
    let empty = try Self.parse(GeoJSONWriter.document(for: [], layout: .points))
    #expect((empty["features"] as? [Any])?.isEmpty == true)
  }

  @Test func numbersNeverUseExponents() {
    let fix = Fix(
      time: Date(timeIntervalSince1970: 0),
      coordinate: Coordinate(uncheckedLatitude: 1e-9, longitude: -0.00000004), source: "t",
      altitudeMeters: 1e-5)
    let text = GeoJSONWriter.document(for: [fix, fix])
    #expect(text.contains("[0,0,0]"))
    #expect(!text.contains("e-"))
  }
}
