import DeliveryTestSupport
import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// Events out (DESIGN §9): webhooks and MQTT from the outbox, end to end with the built
  /// `missiontrack serve`, a real webhook receiver (Python) and a real mosquitto.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceOutboxTests {
    /// The spec's example secret: the receiver checks every signature with it.
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// Every stored event's seq, in order, read back over SSE from `after=0`.
    static func storedSequences(_ server: ServeProcess) async throws -> [Int64] {
      let client = try SSEClient(port: server.port, path: "/v1/events?after=0")
      defer { client.close() }
      _ = await client.wait(timeout: 3) { _ in false }
      return client.events.compactMap(\.id)
    }

    /// The `seq` of each delivered body, in arrival order, with its mission.
    static func delivered(_ receiver: WebhookReceiver) -> [(seq: Int64, mission: String)] {
      receiver.requests.compactMap { request in
        guard
          let object = try? JSONSerialization.jsonObject(with: Data(request.body.utf8))
            as? [String: Any],
          let seq = (object["seq"] as? NSNumber)?.int64Value
        else { return nil }
        return (seq, object["mission_id"] as? String ?? "")
      }
    }

    /// Per mission, each event is sent for the first time only after every earlier one of
    /// its mission (a repeat after a restart may go back; a first send never skips ahead).
    static func firstSendsAreInOrder(_ sent: [(seq: Int64, mission: String)]) -> Bool {
      var seen: Set<Int64> = []
      var last: [String: Int64] = [:]
      for (seq, mission) in sent where seen.insert(seq).inserted {
        if let previous = last[mission], seq < previous { return false }
        last[mission] = seq
      }
      return true
    }

    @Test func aKilledServeDeliversEveryStoredEventAfterItsRestart() async throws {
      let sandbox = try ServiceSandbox()
      let receiver = try WebhookReceiver(in: sandbox.directory, secret: Self.secret)
      defer { receiver.stop() }
      let secretFile = sandbox.path("webhook.secret")
      try (Self.secret + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
      var broker: MosquittoBroker?
      var subscriber: MosquittoSubscriber?
      if MosquittoBroker.isAvailable {
        let started = try MosquittoBroker(in: sandbox.directory)
        broker = started
        subscriber = try MosquittoSubscriber(
          port: started.port, filter: "missiontrack/#", in: sandbox.directory)
      }
      defer {
        subscriber?.stop()
        broker?.stop()
      }
      let arguments =
        ["--webhook", receiver.url("/ok"), "--webhook-secret-file", secretFile]
        + (broker.map { ["--mqtt", $0.url] } ?? [])
        + ["--replay", ServiceSandbox.walkGPX, "--speed", "80"]
      var server = try sandbox.serve(arguments)
      for action in ["accept", "start"] {
        let response = try RawHTTP.request(
          port: server.port, "POST", "/v1/missions/sig-101/\(action)")
        #expect(response.status == 200)
      }
      // Killed in the middle of the walk, after some events went out.
      let deadline = Date().addingTimeInterval(30)
      while Self.delivered(receiver).count < 15 && Date() < deadline { usleep(20_000) }
      #expect(Self.delivered(receiver).count >= 15)
      server.crash()
      server = try sandbox.serve(arguments, tag: "again")
      defer { server.stop() }
      let list = try RawHTTP.request(port: server.port, "GET", "/v1/webhooks")
      #expect(list.text.components(separatedBy: "\"id\"").count == 2, "one webhook: \(list.text)")
      #expect(!list.text.contains("whsec_"), "the secret is shown only once")
      // The walk goes on to the arrival; then the mission is submitted.
      let arrival = Date().addingTimeInterval(60)
      while !receiver.requests.contains(where: { $0.body.contains(#""to":"arrived""#) })
        && Date() < arrival
      {
        usleep(50_000)
      }
      let submit = try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/submit")
      #expect(submit.status == 200)
      let stored = try await Self.storedSequences(server)
      #expect(!stored.isEmpty)
      let all = Date().addingTimeInterval(20)
      while !Set(stored).isSubset(of: Set(Self.delivered(receiver).map(\.seq))) && Date() < all {
        usleep(50_000)
      }
      let sent = Self.delivered(receiver)
      let missing = Set(stored).subtracting(sent.map(\.seq))
      #expect(missing.isEmpty, "never delivered: \(missing.sorted())")
      #expect(Self.firstSendsAreInOrder(sent))
      // Every request is signed by the Standard Webhooks rule, with `evt_<seq>` as its id.
      #expect(receiver.requests.allSatisfy { $0.signatureValid == true })
      for request in receiver.requests {
        #expect(
          request.webhookID.map { request.body.contains("\"seq\":\($0.dropFirst(4))") } == true)
      }
      if let subscriber {
        let published = subscriber.wait(timeout: 20) { messages in
          let seqs = Set(
            messages.filter { $0.hasPrefix("missiontrack/missions/sig-101/events ") }
              .compactMap(Self.sequence(inMessage:)))
          return Set(stored).isSubset(of: seqs)
        }
        let events = published.filter { $0.hasPrefix("missiontrack/missions/sig-101/events ") }
        let seqs = events.compactMap(Self.sequence(inMessage:))
        #expect(Set(stored).subtracting(seqs).isEmpty, "MQTT never published some events")
        #expect(Self.firstSendsAreInOrder(seqs.map { (seq: $0, mission: "sig-101") }))
        #expect(published.contains { $0.hasPrefix("missiontrack/status online") })
        // The last will: the killed serve's broker connection dropped without DISCONNECT.
        #expect(published.contains { $0.hasPrefix("missiontrack/status offline") })
        #expect(
          published.contains {
            $0.hasPrefix("missiontrack/missions/sig-101/state ")
              && $0.contains(#""state":"submitted""#)
          })
      }
    }

    @Test func failedDeliveriesAreRetriedThenDeadAndRedeliveredOnRequest() async throws {
      let sandbox = try ServiceSandbox()
      let receiver = try WebhookReceiver(in: sandbox.directory)
      defer { receiver.stop() }
      // The documented test option: the schedule runs 100,000 times faster (its ten
      // attempts in about 2.6 s instead of three days).
      let server = try ServeProcess(
        ["--db", sandbox.databasePath], in: sandbox.directory,
        environment: ["MISSIONTRACK_RETRY_TIME_SCALE": "0.00001"])
      defer { server.stop() }
      func add(_ path: String) throws -> String {
        let response = try RawHTTP.request(
          port: server.port, "POST", "/v1/webhooks",
          text: #"{"url":"\#(receiver.url(path))","events":["state"]}"#)
        #expect(response.status == 201)
        #expect(response.text.contains("\"secret\":\"whsec_"))
        let object = try JSONSerialization.jsonObject(with: Data(response.text.utf8))
        let webhook = (object as? [String: Any])?["webhook"] as? [String: Any]
        return try #require(webhook?["id"] as? String)
      }
      let failing = try add("/fail")
      let gone = try add("/gone")
      let fine = try add("/ok")
      let accept = try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-102/accept")
      #expect(accept.status == 200)
      func count(_ path: String) -> Int { receiver.requests.filter { $0.path == path }.count }
      let deadline = Date().addingTimeInterval(30)
      while (count("/fail") < 10 || count("/ok") < 1 || count("/gone") < 1)
        && Date() < deadline
      {
        usleep(50_000)
      }
      usleep(500_000)
      // Ten attempts (the first and nine retries), then dead; 410 tried once, then disabled.
      #expect(count("/fail") == 10)
      #expect(count("/gone") == 1)
      #expect(count("/ok") == 1)
      let dead = try RawHTTP.request(
        port: server.port, "GET", "/v1/webhooks/\(failing)/deliveries?state=dead")
      #expect(dead.status == 200)
      #expect(
        dead.text.contains(#""attempts":10"#) && dead.text.contains("HTTP 500"), "\(dead.text)")
      let list = try RawHTTP.request(port: server.port, "GET", "/v1/webhooks")
      #expect(list.text.contains(#""enabled":false"#))
      let seq = try #require(
        receiver.requests.first { $0.path == "/ok" }?.webhookID.flatMap { Int($0.dropFirst(4)) })
      // Redelivery: the dead event is attempted again, the delivered one sent again.
      for id in [failing, fine] {
        let redeliver = try RawHTTP.request(
          port: server.port, "POST", "/v1/webhooks/\(id)/redeliver?from=\(seq)")
        #expect(redeliver.status == 202)
      }
      let again = Date().addingTimeInterval(30)
      while (count("/fail") < 20 || count("/ok") < 2) && Date() < again { usleep(50_000) }
      #expect(count("/fail") == 20)
      #expect(count("/ok") == 2)
      let removed = try RawHTTP.request(port: server.port, "DELETE", "/v1/webhooks/\(gone)")
      #expect(removed.status == 204)
      let missing = try RawHTTP.request(port: server.port, "DELETE", "/v1/webhooks/\(gone)")
      #expect(missing.status == 404)
    }

    /// `serve --webhook URL` without a secret file makes the secret and says it once, on
    /// one stderr line through the console; the next start keeps the stored one, silently.
    @Test func aFlagWebhookWithoutSecretFileShowsItsNewSecretOnce() throws {
      let sandbox = try ServiceSandbox()
      let url = "http://127.0.0.1:9/hooks"
      let first = try ServeProcess(
        ["--db", sandbox.databasePath, "--webhook", url], in: sandbox.directory, tag: "first")
      #expect(first.stop().status == 0)
      let lines = first.errorText.split(separator: "\n").filter { $0.contains("secret") }
      #expect(lines.count == 1, "\(first.errorText)")
      #expect(
        lines.first?.hasPrefix(
          "missiontrack serve: webhook \(url) signs with the new secret whsec_")
          == true, "\(lines)")
      let again = try ServeProcess(
        ["--db", sandbox.databasePath, "--webhook", url], in: sandbox.directory, tag: "again")
      #expect(again.stop().status == 0)
      #expect(!again.errorText.contains("secret"), "\(again.errorText)")
    }

    @Test func theWebhooksCommandAddsListsAndRemoves() throws {
      let sandbox = try ServiceSandbox()
      let added = try sandbox.cli(
        ["webhooks", "add", "http://127.0.0.1:9/hooks", "--event", "state", "--mission", "sig-101"])
      #expect(added.status == 0, "\(added.err)")
      let object = try JSONSerialization.jsonObject(with: Data(added.out.utf8)) as? [String: Any]
      let id = try #require(object?["id"] as? String)
      #expect((object?["secret"] as? String)?.hasPrefix("whsec_") == true)
      #expect(object?["events"] as? [String] == ["state"])
      let list = try sandbox.cli(["webhooks", "list"])
      #expect(list.status == 0 && list.out.contains(id) && !list.out.contains("whsec_"))
      let bad = try sandbox.cli(["webhooks", "add", "ftp://x/y"])
      #expect(bad.status == 1 && bad.err.contains("http"), "\(bad.err)")
      let deliveries = try sandbox.cli(["webhooks", "deliveries", id, "--state", "dead"])
      #expect(deliveries.status == 0 && deliveries.out.isEmpty)
      #expect(try sandbox.cli(["webhooks", "remove", id]).status == 0)
      #expect(try sandbox.cli(["webhooks", "remove", id]).status == 1)
    }

    /// The `seq` of an MQTT message `TOPIC {"seq":N,…}`.
    static func sequence(inMessage message: String) -> Int64? {
      guard let range = message.range(of: "{\"seq\":") else { return nil }
      return Int64(message[range.upperBound...].prefix { $0.isNumber })
    }
  }
}
