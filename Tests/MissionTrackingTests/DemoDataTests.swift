import Foundation
import MissionTracking
import Testing
import TextRules

/// The bundled demo (Traces/demo) does what the README promises: the worker walks to
/// sig-101, arrives, dwells and leaves.
@Suite struct DemoDataTests {
  static let demo = ScenarioTrace.packageRoot.appendingPathComponent("Traces/demo")

  /// Missions of `missions.geojson` (Point features, `[lon, lat]`).
  static func missions() throws -> [Mission] {
    let data = try Data(contentsOf: demo.appendingPathComponent("missions.geojson"))
    let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    let features = try #require(root["features"] as? [[String: Any]])
    return try features.map { feature in
      let geometry = try #require(feature["geometry"] as? [String: Any])
      let point = try #require(geometry["coordinates"] as? [Double])
      let properties = try #require(feature["properties"] as? [String: Any])
      return Mission(
        id: try #require(properties["id"] as? String),
        title: properties["title"] as? String ?? "",
        coordinate: try Coordinate(latitude: point[1], longitude: point[0]),
        geofenceRadiusMeters: properties["radius_m"] as? Double ?? 50,
        reward: properties["reward"] as? String, currency: properties["currency"] as? String,
        address: properties["address"] as? String, state: .active)
    }
  }

  /// The track points of `walk.gpx`, read with a pattern (the test target has no GPX reader).
  static func walk() throws -> [Fix] {
    let text = try String(contentsOf: demo.appendingPathComponent("walk.gpx"), encoding: .utf8)
    let pattern = try NSRegularExpression(
      pattern: #"<trkpt lat="([-0-9.]+)" lon="([-0-9.]+)"><time>([^<]+)</time>"#)
    let range = NSRange(text.startIndex..., in: text)
    return try pattern.matches(in: text, range: range).map { match in
      func group(_ i: Int) -> String { String(text[Range(match.range(at: i), in: text)!]) }
      return Fix(
        time: try #require(UTCTime.parse(group(3))?.date),
        coordinate: try Coordinate(latitude: Double(group(1))!, longitude: Double(group(2))!),
        source: "gpx")
    }
  }

  @Test func theDemoWalkArrivesAtSig101DwellsAndLeaves() throws {
    let missions = try Self.missions()
    #expect(missions.count == 6)
    let target = try #require(missions.first { $0.id == "sig-101" })
    let fixes = try Self.walk()
    #expect(fixes.count > 300)
    var pipeline = TrackingPipeline(
      mission: target, nearbyFences: missions.filter { $0.id != "sig-101" }.map(Geofence.init))
    var events: [TrackingEvent] = []
    for fix in fixes { pipeline.process(fix, into: &events) }
    pipeline.finish(into: &events)
    let own = events.filter { $0.fenceID == "sig-101" }.map(\.type)
    #expect(own == ["enter", "dwell", "exit"])
    #expect(pipeline.summary.rejectedTotal == 0)
    // About 1.1 km to the mission and 0.1 km beyond (jitter adds a little).
    #expect(pipeline.travelledMeters > 1100 && pipeline.travelledMeters < 1500)
    let distances = events.compactMap { event -> Double? in
      if case .fix(_, let distance, _) = event.kind { return distance }
      return nil
    }
    #expect(distances.first! > 900)
    #expect(distances.min()! < 10)
  }
}
