import Foundation
import MissionTracking
import Testing
import TraceFormats

/// Replaying a trace for a test suite: from a path, bytes or a string, through the engine in
/// memory, on the trace's clock.
@Suite struct TraceReplayTests {
  static let walk = Reference.packageRoot.appendingPathComponent("Traces/demo/walk.gpx").path
  static let shop = Mission(
    id: "sig-101", coordinate: Coordinate(uncheckedLatitude: 59.61708, longitude: 17.72185),
    geofenceRadiusMeters: 40)

  @Test func aPathBytesAndAStringReplayAlike() async throws {
    let fromPath = try await TraceReplay.run(path: Self.walk, mission: Self.shop)
    let data = try Data(contentsOf: URL(fileURLWithPath: Self.walk))
    let fromBytes = try await TraceReplay.run(bytes: Array(data), mission: Self.shop)
    let fromText = try await TraceReplay.run(
      text: String(decoding: data, as: UTF8.self), mission: Self.shop)
    #expect(fromPath.deliveredFixes == 112)
    #expect(fromPath.mission.state == .arrived)
    #expect(fromPath.arrivalTime == Date(timeIntervalSince1970: 1_777_889_572))
    // The same events, except the end-of-source detail that names the trace.
    func comparable(_ outcome: TraceReplay.Outcome) -> [TrackingEvent] {
      outcome.events.filter { if case .source(.ended, _) = $0.kind { false } else { true } }
    }
    #expect(comparable(fromBytes) == comparable(fromPath))
    #expect(comparable(fromText) == comparable(fromPath))
    // Transitions on the trace's clock: accept and start at the first fix.
    #expect(fromPath.events.first?.time == Date(timeIntervalSince1970: 1_777_888_800))
  }

  @Test func anInlineNMEALogReplaysWithoutAFile() async throws {
    func sentence(_ body: String) -> String {
      let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
      return "$" + body + "*" + String(format: "%02X", sum)
    }
    let log =
      [
        "GPRMC,100000.00,A,5937.0248,N,01743.3110,E,0.5,0.0,040526,,,A",
        "GPRMC,100001.00,A,5937.0250,N,01743.3112,E,0.5,0.0,040526,,,A",
      ].map(sentence).joined(separator: "\n") + "\n"
    let reader = TraceReader(text: log, name: "inline")
    var fixes: [Fix] = []
    try reader.forEachBatch { fixes += $0 }
    let outcome = try await TraceReplay.run(text: log, mission: Self.shop)
    #expect(fixes.count == 2)
    #expect(outcome.deliveredFixes == 1)  // the second is 0.4 m from the first
    #expect(outcome.events.contains { $0.kind == .state(from: .open, to: .accepted) })
  }

  @Test func badInputIsAnErrorOrACountedSkip() async throws {
    let reader = TraceReader(bytes: Array("not a trace at all\n".utf8), name: "junk")
    #expect(throws: TraceError.self) {
      try reader.forEachBatch { _ in }
    }
    // An empty trace replays to nothing and says why it ended.
    let empty = try await TraceReplay.run(bytes: [], mission: Self.shop)
    #expect(empty.deliveredFixes == 0)
    #expect(empty.mission.state == .active)
  }
}
