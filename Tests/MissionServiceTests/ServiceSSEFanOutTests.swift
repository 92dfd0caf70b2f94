import DeliveryTestSupport
import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// `/v1/events` fanned out to 1,000 clients at once by the built `missiontrack serve`,
  /// with 10 more that never read (issue 27): tracking goes on at its pace, every reading
  /// client gets every event in order, the stalled ones are dropped.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceSSEFanOutTests {
    /// Fixes stored before the clients connect: the 10 that never read ask for all of them
    /// (`after=0`), about 5 MB, so that their streams fill past half of 1 MiB (the drop rule
    /// of docs/service.md) whatever the kernel buffers (up to 4 MiB a socket on loopback).
    static let history = 24_000
    /// Fixes of each measured phase.
    static let fixesPerPhase = 2_000
    /// Fixes a second offered in each measured phase.
    static let pace = 500.0

    /// Raises this process's open-file limit to at least `count` (within the hard limit):
    /// the clients need a descriptor each.
    private static func raiseFileLimit(to count: rlim_t) {
      var limit = rlimit()
      guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0,
        limit.rlim_cur < count
      else { return }
      limit.rlim_cur = min(count, limit.rlim_max)
      setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// Posts fixes `range` of a walk north (15 m a second from `start`) for worker `bo` in
    /// batches, at most `perSecond` fixes a second when given; returns the seconds it took,
    /// every batch committed.
    private func post(
      _ server: ServeProcess, _ range: Range<Int>, start: Date, perSecond: Double? = nil
    ) throws -> Double {
      let began = Date()
      let size = perSecond == nil ? 500 : 50
      for batch in stride(from: range.lowerBound, to: range.upperBound, by: size) {
        if let perSecond {
          // Pacing (the offered load), not a check.
          let due = began.addingTimeInterval(Double(batch - range.lowerBound) / perSecond)
          let wait = due.timeIntervalSinceNow
          if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
        }
        let lines = (batch..<min(batch + size, range.upperBound)).map { index in
          let time = PhoneFixtures.rfc3339(start.addingTimeInterval(Double(index)))
          return #"{"time":"\#(time)","lat":\#(59.60 + Double(index) * 15 / 111_320),"lon":17.70}"#
        }
        let response = try RawHTTP.request(
          port: server.port, "POST", "/v1/ingest/fixes?worker=bo",
          body: Array(lines.joined(separator: "\n").utf8))
        #expect(
          response.json?["accepted"] as? Int == lines.count, "\(response.status) \(response.text)")
      }
      return Date().timeIntervalSince(began)
    }

    /// The `id:` of each event of an SSE body, in order.
    private static func eventIDs(_ body: [UInt8]) -> [Int64] {
      String(decoding: body, as: UTF8.self).components(separatedBy: "\n\n").compactMap { block in
        block.split(separator: "\n").first { $0.hasPrefix("id: ") }.flatMap {
          Int64($0.dropFirst(4))
        }
      }
    }

    @Test func aThousandClientsGetEveryEventAndTenThatNeverReadAreDropped() async throws {
      Self.raiseFileLimit(to: 4_096)
      let sandbox = try ServiceSandbox()
      // No keepalive comment during the test: every reader gets the same bytes.
      let server = try sandbox.serve(["--sse-keepalive", "3600"])
      defer { server.stop() }
      let worker = try RawHTTP.request(
        port: server.port, "PUT", "/v1/workers/bo", text: #"{"name":"Bo","devices":[]}"#)
      #expect(worker.status == 201, "\(worker.text)")
      let accept = try RawHTTP.request(
        port: server.port, "POST", "/v1/missions/sig-101/accept", text: #"{"worker_id":"bo"}"#)
      #expect(accept.status == 200, "\(accept.text)")
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/start").status == 200)
      let start = PhoneFixtures.nextSecond()

      // Tracking alone: the history as fast as it goes, then a phase at the offered pace.
      _ = try post(server, 0..<Self.history, start: start)
      let phase1 = Self.history..<Self.history + Self.fixesPerPhase
      let alone = try post(server, phase1, start: start, perSecond: Self.pace)
      let before = try sandbox.storedEvents().last?.seq ?? 0

      // 1,000 readers from the last event on, and 10 that never read asking for everything.
      let clients = try SSEFanOutClients(
        port: server.port, path: "/v1/events?after=\(before)", readers: 1_000,
        stalledPath: "/v1/events?after=0", stalled: 10)
      defer { clients.close() }
      let connected = await eventually(60) {
        server.metric("missiontrack_sse_clients") == 1_010
          && clients.readers.allSatisfy { $0.status == 200 }
      }
      #expect(
        connected,
        Comment(
          rawValue: "\(server.metric("missiontrack_sse_clients") ?? -1) clients connected, "
            + "\(clients.readers.filter { $0.status == 200 }.count) readers answered"))
      let phase2 = phase1.upperBound..<phase1.upperBound + Self.fixesPerPhase
      let together = try post(server, phase2, start: start, perSecond: Self.pace)
      let stored = try sandbox.storedEvents(after: before).map(\.seq)
      #expect(stored.count >= Self.fixesPerPhase, "\(stored.count) events")

      // Every reader gets every event, in order: the first one's body is parsed, the others
      // must have the same bytes.
      let allIn = await eventually(60) {
        Self.eventIDs(clients.firstReaderBody) == stored
          && Set(clients.readers.map(\.bodyBytes)).count == 1
      }
      let first = clients.firstReaderBody
      #expect(allIn, "first reader: \(Self.eventIDs(first).count) of \(stored.count) events")
      #expect(Self.eventIDs(first) == stored)
      let readers = clients.readers
      let reference = readers[0]
      let differing = readers.indices.filter {
        readers[$0].bodyBytes != reference.bodyBytes || readers[$0].bodyHash != reference.bodyHash
      }
      #expect(differing.isEmpty, "\(differing.count) readers got other bytes than the first")
      // The ten that never read are dropped (5 s with a full buffer); the readers are not.
      let dropped = await eventually(30) {
        server.metric("missiontrack_sse_clients_dropped_total") == 10
      }
      #expect(dropped, "dropped: \(server.metric("missiontrack_sse_clients_dropped_total") ?? -1)")
      #expect(server.metric("missiontrack_sse_clients") == 1_000)
      #expect(clients.readers.allSatisfy { !$0.ended })
      // Tracking kept its pace: fixes stored per second with the clients, against alone, at
      // the same offered load (a generous bound, for a loaded machine; unpaced, the fan-out
      // and this process's reading share the two cores with the writer).
      let rates = (
        alone: Double(Self.fixesPerPhase) / alone, together: Double(Self.fixesPerPhase) / together
      )
      #expect(
        rates.together >= 0.5 * rates.alone,
        "\(Int(rates.alone)) fixes/s alone, \(Int(rates.together)) with 1,010 clients")
    }
  }
}
