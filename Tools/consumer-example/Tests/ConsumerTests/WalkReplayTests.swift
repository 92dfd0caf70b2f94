// Another team's test suite: replay a recorded walk through MissionTrack's engine, in
// memory, on the trace's own clock, and assert on what happened.
import Foundation
import MissionProximity
import MissionTracking
import Testing
import TraceFormats

/// The demo walk to the shop front at Stora gatan 28, Sigtuna (bundled with MissionTrack).
let walk = URL(fileURLWithPath: #filePath)
  .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  .appendingPathComponent("../../Traces/demo/walk.gpx").standardizedFileURL.path

@Test func theWalkArrivesAtTheShopFrontOnTime() async throws {
  let shop = Mission(
    id: "sig-101", title: "Photograph the shop front",
    coordinate: try Coordinate(latitude: 59.61708, longitude: 17.72185), geofenceRadiusMeters: 40)
  let outcome = try await TraceReplay.run(path: walk, mission: shop)
  #expect(outcome.mission.state == .arrived)
  #expect(outcome.arrivalTime == ISO8601DateFormatter().date(from: "2026-05-04T10:12:52Z"))
  #expect(outcome.deliveredFixes == 112)
  #expect(outcome.end == .sourceEnded)
  let enters = outcome.events.filter { if case .enter = $0.kind { true } else { false } }
  #expect(enters.count == 1)
}

@Test func aNoisyWalkStillArrivesExactlyOnce() async throws {
  let shop = Mission(
    id: "sig-101", coordinate: try Coordinate(latitude: 59.61708, longitude: 17.72185),
    geofenceRadiusMeters: 40)
  var faults = TraceFaults()
  faults.noiseSigmaMeters = 5
  faults.seed = 11
  let outcome = try await TraceReplay.run(path: walk, mission: shop, faults: faults)
  let arrivals = outcome.events.filter { $0.kind == .state(from: .active, to: .arrived) }
  #expect(arrivals.count == 1)
}
