import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// `GET /v1/events`: live events as Server-Sent Events with the store's sequence as id; a
  /// client that reconnects with `Last-Event-ID` misses nothing and gets nothing twice, also
  /// after the daemon itself was killed and restarted.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceEventStreamTests {
    /// The mission's stored events as (seq, type) from the export, which reads the store.
    private func storedIDs(_ sandbox: ServiceSandbox) async throws -> [Int64] {
      let server = try sandbox.serve(tag: "check")
      defer { server.stop() }
      let client = try SSEClient(port: server.port, path: "/v1/events?after=0")
      let expected = try RawHTTP.request(port: server.port, "GET", "/v1/missions/sig-101/events")
      let lines = expected.text.split(separator: "\n").count
      _ = await client.wait(timeout: 60) { $0.count >= lines }
      client.close()
      return client.events.compactMap(\.id)
    }

    @Test func aClientReconnectingAfterTheDaemonWasKilledMissesNothing() async throws {
      let sandbox = try ServiceSandbox()
      var server = try sandbox.serve(["--replay", ServiceSandbox.walkGPX, "--speed", "80"])
      let first = try SSEClient(port: server.port, path: "/v1/events?after=0")
      #expect(await first.wait(timeout: 5) { _ in first.head.contains("200") })
      #expect(first.head.lowercased().contains("content-type: text/event-stream"))
      for action in ["accept", "start"] {
        let response = try RawHTTP.request(
          port: server.port, "POST", "/v1/missions/sig-101/\(action)")
        #expect(response.status == 200)
      }
      // Part of the walk arrives live; then the client goes away mid-mission.
      #expect(await first.wait(timeout: 30) { $0.filter { $0.type == "fix" }.count >= 15 })
      first.close()
      let seen = first.events
      let lastSeen = try #require(seen.last?.id)
      // The daemon dies mid-mission (no clean stop) and comes back on the same database.
      _ = await first.wait(timeout: 1) { _ in false }
      server.crash()
      server = try sandbox.serve(
        ["--replay", ServiceSandbox.walkGPX, "--speed", "80"], tag: "again")
      let second = try SSEClient(port: server.port, lastEventID: lastSeen)
      #expect(
        await second.wait(timeout: 60) { events in
          events.contains { $0.type == "state" && $0.data.contains(#""to":"arrived""#) }
        })
      let submit = try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/submit")
      #expect(submit.status == 200)
      #expect(
        await second.wait(timeout: 60) { events in
          events.contains { $0.type == "state" && $0.data.contains(#""to":"submitted""#) }
        })
      second.close()
      #expect(server.stop().status == 0)

      let received = seen.compactMap(\.id) + second.events.compactMap(\.id)
      #expect(Set(received).count == received.count, "an event was sent twice")
      #expect(received == received.sorted())
      let stored = try await storedIDs(sandbox)
      #expect(!stored.isEmpty)
      #expect(
        received == stored, "received \(received.count) events, the store holds \(stored.count)")
      // Every event's data is its stored JSON line, with its type.
      for event in seen + second.events {
        let object = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
        #expect(object?["type"] as? String == event.type)
      }
    }

    @Test func aNewClientStartsAtTheNewestEventAndCanFilterByMission() async throws {
      let sandbox = try ServiceSandbox()
      // Keepalives every second rather than 15 (the default), so the test need not wait.
      let server = try sandbox.serve(["--sse-keepalive", "1"])
      defer { server.stop() }
      _ = try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-102/accept")
      let live = try SSEClient(port: server.port)
      let filtered = try SSEClient(port: server.port, path: "/v1/events?mission_id=sig-103&after=0")
      // Subscribed before the events are made, not after a fixed wait: a live stream starts
      // at the log's end as it is when the server subscribes it.
      #expect(await live.waitUntilSubscribed())
      _ = try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-103/accept")
      _ = try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-103/cancel")
      #expect(await live.wait(timeout: 60) { $0.count == 2 })
      #expect(await filtered.wait(timeout: 60) { $0.count == 2 })
      // The accept of sig-102 happened before `live` connected, so it is not replayed.
      #expect(live.events.allSatisfy { $0.data.contains(#""mission_id":"sig-103""#) })
      #expect(filtered.events.map(\.data) == live.events.map(\.data))
      // An idle stream gets a `: keepalive` comment (every 15 s by default), so proxies keep
      // it open.
      let idle = try SSEClient(port: server.port, path: "/v1/events?mission_id=sig-104")
      #expect(await idle.wait(timeout: 60) { _ in idle.commentCount >= 2 })
      #expect(idle.events.isEmpty && !idle.isEnded)
      let bad = try RawHTTP.request(port: server.port, "GET", "/v1/events?after=-1")
      #expect(bad.status == 400)
      let unknown = try RawHTTP.request(port: server.port, "GET", "/v1/events?mission_id=nope")
      #expect(unknown.status == 404)
    }
  }
}
