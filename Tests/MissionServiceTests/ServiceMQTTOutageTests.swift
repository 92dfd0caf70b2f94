import DeliveryTestSupport
import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// A real mosquitto that goes away for 10 s in the middle of a walk served by the built
  /// `missiontrack serve --mqtt`: nothing stored is lost on the way out (DESIGN §9).
  @Suite(
    .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"),
    .enabled(if: MosquittoBroker.isAvailable, "needs mosquitto and mosquitto-clients"))
  struct ServiceMQTTOutageTests {
    /// The events published on `missiontrack/missions/{id}/events`, as (seq, mission), in
    /// arrival order (repeats included).
    private static func published(_ messages: [String]) -> [(seq: Int64, mission: String)] {
      messages.compactMap { message in
        let topic = message.prefix { $0 != " " }.split(separator: "/")
        guard topic.count == 4, topic[1] == "missions", topic[3] == "events",
          let seq = ServiceOutboxTests.sequence(inMessage: message)
        else { return nil }
        return (seq, String(topic[2]))
      }
    }

    /// The mission's state from the API.
    private func state(_ server: ServeProcess, _ mission: String) -> String? {
      let response = try? RawHTTP.request(port: server.port, "GET", "/v1/missions/\(mission)")
      return (response?.json?["mission"] as? [String: Any])?["state"] as? String
    }

    @Test func aBrokerAwayForTenSecondsMidWalkLosesNoEvent() async throws {
      let sandbox = try ServiceSandbox()
      // Persistent, as a production broker: retained messages and the subscriber's session
      // outlive its restart, so what reaches it while the subscriber reconnects is queued.
      let broker = try MosquittoBroker(in: sandbox.directory, persistent: true)
      defer { broker.stop() }
      let subscriber = try MosquittoSubscriber(
        port: broker.port, filter: "missiontrack/#", in: sandbox.directory, cleanSession: false)
      defer { subscriber.stop() }
      let before = try sandbox.storedEvents().last?.seq ?? 0
      // The walk to sig-101 in about 42 s: still under way through the outage even when a
      // loaded run sees its first ten messages twenty seconds late.
      let server = try sandbox.serve(
        ["--mqtt", broker.url, "--replay", ServiceSandbox.walkGPX, "--speed", "25"])
      defer { server.stop() }
      for action in ["accept", "start"] {
        let response = try RawHTTP.request(
          port: server.port, "POST", "/v1/missions/sig-101/\(action)")
        #expect(response.status == 200)
      }
      let underway = subscriber.wait(timeout: 60) { Self.published($0).count >= 10 }
      #expect(Self.published(underway).count >= 10, "the walk did not start: \(underway)")
      broker.stop()
      let lastBeforeOutage = try sandbox.storedEvents(after: before).last?.seq ?? before
      // The outage itself (the scenario, not a check).
      try await Task.sleep(for: .seconds(10))
      let stoppedAt = try sandbox.storedEvents(after: before).last?.seq ?? before
      #expect(stoppedAt > lastBeforeOutage, "the walk stored nothing while the broker was away")
      try broker.start()
      #expect(await eventually(120) { state(server, "sig-101") == "arrived" })
      let submit = try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/submit")
      #expect(submit.status == 200)
      // Every event stored since serve started is published, at least once.
      let stored = try sandbox.storedEvents(after: before)
      #expect(stored.contains { $0.seq > stoppedAt }, "nothing stored after the outage")
      let messages = subscriber.wait(timeout: 60) { messages in
        Set(stored.map(\.seq)).isSubset(of: Self.published(messages).map(\.seq))
      }
      let sent = Self.published(messages)
      let missing = Set(stored.map(\.seq)).subtracting(sent.map(\.seq))
      #expect(missing.isEmpty, "never published: \(missing.sorted())")
      #expect(
        Dictionary(stored.map { ($0.seq, $0.mission) }, uniquingKeysWith: { a, _ in a })
          == Dictionary(sent.map { ($0.seq, $0.mission) }, uniquingKeysWith: { a, _ in a }),
        "an event on another mission's topic, or one not stored")
      #expect(ServiceOutboxTests.firstSendsAreInOrder(sent), "out of order: \(sent.map(\.seq))")
      // The status came back online after the reconnect.
      #expect(
        messages.last { $0.hasPrefix("missiontrack/status ") } == "missiontrack/status online")
      // The retained mission state is the submitted mission, for a subscriber arriving now.
      let later = try MosquittoSubscriber(
        port: broker.port, filter: "missiontrack/missions/sig-101/state", in: sandbox.directory)
      defer { later.stop() }
      let retained = later.wait(timeout: 60) {
        $0.contains { $0.contains(#""state":"submitted""#) }
      }
      #expect(retained.count == 1, "\(retained)")
      let payload = retained.first.map {
        $0.dropFirst("missiontrack/missions/sig-101/state ".count)
      }
      let mission = payload.flatMap {
        try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
      }
      #expect(mission?["id"] as? String == "sig-101" && mission?["state"] as? String == "submitted")
      // The MQTT cursor caught up: nothing undelivered is left.
      let caughtUp = await eventually(60) {
        server.metric(
          "missiontrack_outbox_oldest_undelivered_age_seconds{consumer=\"mqtt:missiontrack\"}")
          == 0
      }
      #expect(caughtUp)
    }
  }
}
