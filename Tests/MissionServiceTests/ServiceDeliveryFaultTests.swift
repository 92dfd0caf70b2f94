import DeliveryTestSupport
import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// Webhook receivers failing as issue 27 lists them, through the built `missiontrack serve`
  /// and the Python receiver (which checks every signature): a port that refuses
  /// connections, a receiver that hangs, a 503 with `Retry-After`.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceDeliveryFaultTests {
    /// The spec's example secret, given to every webhook and to the receiver.
    static let secret = ServiceOutboxTests.secret

    /// A sandbox with the secret in `webhook.secret`.
    private func sandboxWithSecret() throws -> (ServiceSandbox, secretFile: String) {
      let sandbox = try ServiceSandbox()
      let secretFile = sandbox.path("webhook.secret")
      try (Self.secret + "\n").write(toFile: secretFile, atomically: true, encoding: .utf8)
      return (sandbox, secretFile)
    }

    /// `serve` with these webhooks (`--webhook URL --webhook-secret-file F` each) and the
    /// retry schedule multiplied by `scale` (nil: the production schedule).
    private func serve(
      _ sandbox: ServiceSandbox, webhooks: [String], secretFile: String, scale: String?
    ) throws -> ServeProcess {
      try ServeProcess(
        ["--db", sandbox.databasePath]
          + webhooks.flatMap { ["--webhook", $0, "--webhook-secret-file", secretFile] },
        in: sandbox.directory,
        environment: scale.map { ["MISSIONTRACK_RETRY_TIME_SCALE": $0] } ?? [:])
    }

    /// The stored webhooks' ids by URL.
    private func webhookIDs(_ server: ServeProcess) throws -> [String: String] {
      let list = try RawHTTP.request(port: server.port, "GET", "/v1/webhooks")
      let webhooks = list.json?["webhooks"] as? [[String: Any]] ?? []
      return Dictionary(
        webhooks.compactMap { webhook in
          (webhook["url"] as? String).flatMap { url in (webhook["id"] as? String).map { (url, $0) }
          }
        }, uniquingKeysWith: { a, _ in a })
    }

    /// `GET /v1/webhooks/{id}/deliveries?state=STATE` as objects.
    private func deliveries(_ server: ServeProcess, _ id: String, _ state: String) throws
      -> [[String: Any]]
    {
      let response = try RawHTTP.request(
        port: server.port, "GET", "/v1/webhooks/\(id)/deliveries?state=\(state)")
      return response.json?["deliveries"] as? [[String: Any]] ?? []
    }

    /// `missiontrack_webhook_deliveries_total{outcome=OUTCOME}` now.
    private func deliveryCount(_ server: ServeProcess, _ outcome: String) -> Int? {
      server.metric("missiontrack_webhook_deliveries_total{outcome=\"\(outcome)\"}")
    }

    /// The `seq` a request carries in its `webhook-id` (`evt_<seq>`).
    private static func sequence(_ request: WebhookReceiver.Request) -> Int64? {
      request.webhookID.flatMap { Int64($0.dropFirst("evt_".count)) }
    }

    @Test func aReceiverThatRefusesConnectionsIsRetriedThenDeadWithTheRefusalNamed() async throws {
      let (sandbox, secretFile) = try sandboxWithSecret()
      let receiver = try WebhookReceiver(in: sandbox.directory, secret: Self.secret)
      defer { receiver.stop() }
      // Nothing listens on this port: every connection is refused.
      let refusedPort = try RawHTTP.freeLoopbackPort()
      let refused = "http://127.0.0.1:\(refusedPort)/hooks"
      // The ten attempts of the schedule in about 2.7 s instead of three days.
      let server = try serve(
        sandbox, webhooks: [refused, receiver.url("/ok")], secretFile: secretFile,
        scale: "0.00001")
      defer { server.stop() }
      let ids = try webhookIDs(server)
      let refusedID = try #require(ids[refused])
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-102/accept").status
          == 200)
      let stored = try sandbox.storedEvents().map(\.seq)
      #expect(!stored.isEmpty)
      let allDead = await eventually(60) {
        (try? deliveries(server, refusedID, "dead").count) == stored.count
      }
      #expect(allDead, "dead: \((try? deliveries(server, refusedID, "dead")) ?? [])")
      for dead in try deliveries(server, refusedID, "dead") {
        // The first attempt and the nine retries of the schedule, then dead.
        #expect(dead["attempts"] as? Int == 10, "\(dead)")
        let error = dead["last_error"] as? String ?? ""
        #expect(!error.contains("\n"), "one line: \(error)")
        #expect(error.contains("127.0.0.1") && error.contains(String(refusedPort)), "\(error)")
        #expect(error.contains("Connection refused"), "the refusal is named: \(error)")
      }
      #expect(
        Set(try deliveries(server, refusedID, "dead").compactMap { $0["seq"] as? Int })
          == Set(stored.map(Int.init)))
      // The healthy webhook got each event once, signed.
      #expect(await eventually(60) { receiver.requests.count == stored.count })
      #expect(receiver.requests.compactMap(Self.sequence) == stored)
      #expect(receiver.requests.allSatisfy { $0.signatureValid == true })
      // /metrics: ten failed attempts per event (the last one dead), the delivered ones, the
      // dead deliveries by webhook.
      #expect(deliveryCount(server, "failed") == 10 * stored.count)
      #expect(deliveryCount(server, "dead") == stored.count)
      #expect(deliveryCount(server, "delivered") == stored.count)
      #expect(
        server.metric("missiontrack_webhook_dead_deliveries{webhook=\"\(refusedID)\"}")
          == stored.count)
    }

    @Test func aHangingReceiverIsCutAtTheTimeoutAndRetriedWhileOtherDeliveriesGoOn() async throws {
      let (sandbox, secretFile) = try sandboxWithSecret()
      let receiver = try WebhookReceiver(in: sandbox.directory, secret: Self.secret)
      defer { receiver.stop() }
      // `/hang` answers after 30 s; the client gives up after 10 s (not scaled).
      let server = try serve(
        sandbox, webhooks: [receiver.url("/hang"), receiver.url("/ok")], secretFile: secretFile,
        scale: "0.00001")
      defer { server.stop() }
      // Two missions: sig-102's second event waits behind its first; sig-103 goes meanwhile.
      for (mission, action) in [
        ("sig-102", "accept"), ("sig-103", "accept"), ("sig-102", "cancel"),
      ] {
        let response = try RawHTTP.request(
          port: server.port, "POST", "/v1/missions/\(mission)/\(action)")
        #expect(response.status == 200, "\(mission) \(action): \(response.text)")
      }
      let stored = try sandbox.storedEvents()
      let first102 = try #require(stored.first { $0.mission == "sig-102" }?.seq)
      let later102 = try #require(stored.last { $0.mission == "sig-102" }?.seq)
      let first103 = try #require(stored.first { $0.mission == "sig-103" }?.seq)
      #expect(first102 < later102)
      func requests(_ path: String) -> [WebhookReceiver.Request] {
        receiver.requests.filter { $0.path == path }
      }
      // The healthy webhook gets every event, in order, while the first hanging attempt
      // still waits for its answer.
      #expect(await eventually(30) { requests("/ok").count == stored.count })
      // Each event once, each mission's in order (the two missions go in parallel).
      let okSeqs = requests("/ok").compactMap(Self.sequence)
      #expect(okSeqs.sorted() == stored.map(\.seq))
      let missionOf = Dictionary(uniqueKeysWithValues: stored.map { ($0.seq, $0.mission) })
      #expect(
        ServiceOutboxTests.firstSendsAreInOrder(okSeqs.map { ($0, missionOf[$0] ?? "") }),
        "\(okSeqs)")
      let firstHang = try #require(requests("/hang").first)
      #expect(
        requests("/ok").allSatisfy { $0.time < firstHang.time + 9 },
        "the healthy webhook waited for the hanging one")
      // The hanging webhook: both missions' first events are tried at once (missions in
      // parallel), each cut at the 10 s timeout and tried again.
      let retried = await eventually(40) {
        [first102, first103].allSatisfy { seq in
          requests("/hang").filter { Self.sequence($0) == seq }.count >= 2
        }
      }
      #expect(retried, "\(requests("/hang").map { ($0.webhookID ?? "", $0.time) })")
      for seq in [first102, first103] {
        let attempts = requests("/hang").filter { Self.sequence($0) == seq }
        guard attempts.count >= 2 else { continue }
        #expect(attempts[0].time < firstHang.time + 5, "evt_\(seq) was held back")
        let gap = attempts[1].time - attempts[0].time
        // Cut by the client's 10 s timeout, not by the receiver's 30 s answer.
        #expect(gap >= 9.5 && gap < 25, "evt_\(seq): second attempt after \(gap) s")
      }
      // Per mission in order: sig-102's later event is not sent while its first is retried.
      #expect(!requests("/hang").contains { Self.sequence($0) == later102 })
      let hangID = try #require(try webhookIDs(server)[receiver.url("/hang")])
      let failed = try deliveries(server, hangID, "failed")
      let failure = try #require(failed.first { ($0["seq"] as? Int) == Int(first102) })
      let error = failure["last_error"] as? String ?? ""
      #expect(error.lowercased().contains("timed out") && !error.contains("\n"), "\(error)")
      #expect(receiver.requests.allSatisfy { $0.signatureValid == true })
      #expect(deliveryCount(server, "delivered") == stored.count)
      #expect(deliveryCount(server, "failed").map { $0 >= 2 } == true)
      #expect(deliveryCount(server, "dead") == 0)
      // A stop does not wait for the hanging attempts (within 2 s, docs/service.md; more
      // time here for a loaded machine, but no SIGKILL).
      let stop = server.stop(timeout: 10)
      #expect(stop.status == 0 && stop.seconds < 5, "\(stop)")
    }

    @Test func a503WithRetryAfterIsTriedAgainNoEarlierThanItSays() async throws {
      let (sandbox, secretFile) = try sandboxWithSecret()
      let receiver = try WebhookReceiver(in: sandbox.directory, secret: Self.secret)
      defer { receiver.stop() }
      // The production schedule: the first retry is due after 4.5–5.5 s, but `/busy` says
      // `Retry-After: 7` and `/busy-date` an HTTP date 9 s ahead (8–9 s, whole seconds).
      let server = try serve(
        sandbox, webhooks: [receiver.url("/busy"), receiver.url("/busy-date")],
        secretFile: secretFile, scale: nil)
      defer { server.stop() }
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-102/accept").status
          == 200)
      let seq = try #require(sandbox.storedEvents().first?.seq)
      func attempts(_ path: String) -> [WebhookReceiver.Request] {
        receiver.requests.filter { $0.path == path && Self.sequence($0) == seq }
      }
      let both = await eventually(40) {
        attempts("/busy").count >= 2 && attempts("/busy-date").count >= 2
      }
      #expect(both, "\(receiver.requests.map { ($0.path, $0.time) })")
      for (path, seconds) in [("/busy", 7.0), ("/busy-date", 8.0)] {
        let tries = attempts(path)
        guard tries.count >= 2 else { continue }
        let gap = tries[1].time - tries[0].time
        // The receiver logs a request before it answers, so the gap includes the answer's
        // time: it is at least the Retry-After (0.05 s for the clocks' granularity).
        #expect(gap >= seconds - 0.05, "\(path): tried again after \(gap) s")
        #expect(tries[0].webhookID == tries[1].webhookID)
      }
      #expect(receiver.requests.allSatisfy { $0.signatureValid == true })
      let busyID = try #require(try webhookIDs(server)[receiver.url("/busy")])
      let failed = try deliveries(server, busyID, "failed")
      #expect(
        failed.contains {
          ($0["seq"] as? Int) == Int(seq) && ($0["last_error"] as? String) == "HTTP 503"
            && $0["next_attempt"] != nil
        }, "\(failed)")
      #expect(deliveryCount(server, "failed").map { $0 >= 4 } == true)
      #expect(deliveryCount(server, "delivered") == 0)
      #expect(deliveryCount(server, "dead") == 0)
    }
  }
}
