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

  /// Bytes handed out one by one, asynchronously, as a network stream would.
  struct ByteStream: AsyncSequence, Sendable {
    typealias Element = UInt8
    let bytes: [UInt8]
    struct AsyncIterator: AsyncIteratorProtocol {
      let bytes: [UInt8]
      var index = 0
      mutating func next() async -> UInt8? {
        guard index < bytes.count else { return nil }
        if index % 4096 == 0 { await Task.yield() }
        index += 1
        return bytes[index - 1]
      }
    }
    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(bytes: bytes) }
  }

  @Test func aStreamOfBytesDecodesAsItArrivesLikeTheFile() async throws {
    let data = Array(try Data(contentsOf: URL(fileURLWithPath: Self.walk)))
    var streamed: [Fix] = []
    var batches = 0
    for try await batch in StreamReplaySource(bytes: ByteStream(bytes: data), chunkSize: 8192)
      .reportBatches()
    {
      batches += 1
      for report in batch { if case .fix(let fix) = report { streamed.append(fix) } }
    }
    var whole: [Fix] = []
    try TraceReader(path: Self.walk).forEachBatch { whole += $0 }
    #expect(streamed == whole)
    #expect(batches > 10)  // decoded as it arrived, not at the end
    // Through the engine: the same arrival as from the file.
    let engine = MissionEngine(
      store: InMemoryTrackingStore(missions: [Self.shop]),
      source: StreamReplaySource(bytes: ByteStream(bytes: data)),
      clock: ManualClock(Date(timeIntervalSince1970: 1_777_888_800)))
    try await engine.open()
    try await engine.perform(.accept, on: "sig-101")
    try await engine.perform(.start, on: "sig-101")
    #expect(await engine.waitUntilTrackingEnds() == .sourceEnded)
    #expect(await engine.mission("sig-101")?.state == .arrived)
    await engine.shutdown()
    // A path reader cannot be fed.
    var none: [Fix] = []
    #expect(throws: TraceError.self) {
      _ = try TraceReader(path: Self.walk).read(appending: [0x24], into: &none)
    }
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
