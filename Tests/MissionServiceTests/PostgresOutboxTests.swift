import DeliveryTestSupport
import Foundation
import PostgresTestSupport
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// Events out on PostgreSQL (DESIGN §9, §10): the built `missiontrack serve` nodes on one
  /// database of a private cluster, a real webhook receiver and a real mosquitto. The nodes
  /// share each consumer through its delivery claim: one node sends each event.
  @Suite(
    .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"),
    .enabled(
      if: PostgresTestCluster.isAvailable,
      "PostgreSQL 15 + PostGIS 3 are not installed (Tools/setup): PostgreSQL tests skipped"))
  struct PostgresOutboxTests {
    typealias Outbox = ServiceOutboxTests

    /// A sandbox for the nodes' files, and a new database of the shared cluster holding the
    /// demo missions.
    private func database() throws -> (ServiceSandbox, cluster: PostgresTestCluster, uri: String) {
      let sandbox = try ServiceSandbox(demo: false)
      let cluster = try PostgresTestCluster.shared.get()
      let uri = try cluster.createDatabase()
      let imported = try ServeProcess.run(
        ["missions", "import", ServiceSandbox.demoMissions, "--db", uri], in: sandbox.directory)
      guard imported.status == 0 else { throw TestFailure(imported.err) }
      return (sandbox, cluster, uri)
    }

    /// A webhook receiver checking signatures with the spec's secret, and the `serve` flags
    /// of a webhook to it signing with that secret.
    private func receiver(in sandbox: ServiceSandbox) throws -> (WebhookReceiver, [String]) {
      let receiver = try WebhookReceiver(in: sandbox.directory, secret: Outbox.secret)
      let file = sandbox.path("webhook.secret")
      try (Outbox.secret + "\n").write(toFile: file, atomically: true, encoding: .utf8)
      return (receiver, ["--webhook", receiver.url("/ok"), "--webhook-secret-file", file])
    }

    /// `serve --db URI ARGUMENTS`; with `walking`, its receiver worker (`local`) replays the
    /// demo walk to sig-101 once the mission is started.
    private func node(
      _ uri: String, _ arguments: [String], walking: Bool, tag: String, in sandbox: ServiceSandbox
    ) throws -> ServeProcess {
      let walk = walking ? ["--replay", ServiceSandbox.walkGPX, "--speed", "80"] : []
      return try ServeProcess(["--db", uri] + arguments + walk, in: sandbox.directory, tag: tag)
    }

    /// Sends `POST /v1/missions/MISSION/ACTION` to `node`, again while the node has not yet
    /// seen the state another node made (its grid follows within a second): its status.
    private func act(_ node: ServeProcess, _ mission: String, _ action: String) async -> Int {
      var status = 0
      _ = await eventually(60) {
        status =
          (try? RawHTTP.request(port: node.port, "POST", "/v1/missions/\(mission)/\(action)"))?
          .status ?? 0
        return status == 200
      }
      return status
    }

    /// Whether the receiver got sig-101's arrival.
    private func arrived(_ receiver: WebhookReceiver) -> Bool {
      receiver.requests.contains { $0.body.contains(#""to":"arrived""#) }
    }

    /// How many times each seq was delivered.
    private func deliveryCounts(_ receiver: WebhookReceiver) -> [Int64: Int] {
      Outbox.delivered(receiver).reduce(into: [:]) { $0[$1.seq, default: 0] += 1 }
    }

    @Test func oneNodeDeliversSignedEventsAsOnSQLite() async throws {
      let (sandbox, _, uri) = try database()
      let (receiver, webhook) = try receiver(in: sandbox)
      defer { receiver.stop() }
      let server = try node(uri, webhook, walking: true, tag: "node", in: sandbox)
      defer { server.stop() }
      #expect(await act(server, "sig-101", "accept") == 200)
      #expect(await act(server, "sig-101", "start") == 200)
      #expect(await eventually(60) { arrived(receiver) })
      #expect(await act(server, "sig-101", "submit") == 200)
      let stored = try await Outbox.storedSequences(server)
      #expect(stored.count > 10)
      #expect(await eventually(60) { Set(deliveryCounts(receiver).keys) == Set(stored) })
      #expect(deliveryCounts(receiver).values.allSatisfy { $0 == 1 }, "\(deliveryCounts(receiver))")
      #expect(Outbox.firstSendsAreInOrder(Outbox.delivered(receiver)))
      #expect(receiver.requests.allSatisfy { $0.signatureValid == true })
      // The API's webhooks, as on SQLite: the flag's, and one added, listed without secrets.
      let added = try RawHTTP.request(
        port: server.port, "POST", "/v1/webhooks", text: #"{"url":"http://127.0.0.1:9/hook"}"#)
      #expect(added.status == 201 && added.text.contains("\"secret\":\"whsec_"), "\(added.text)")
      let list = try RawHTTP.request(port: server.port, "GET", "/v1/webhooks")
      #expect(list.status == 200)
      #expect(list.text.components(separatedBy: "\"id\"").count == 3, "\(list.text)")
      #expect(list.text.contains(#""origin":"flag""#) && !list.text.contains("whsec_"))
    }

    @Test func twoNodesWithOneWebhookDeliverEachEventOnceInOrder() async throws {
      let (sandbox, cluster, uri) = try database()
      let (receiver, webhook) = try receiver(in: sandbox)
      defer { receiver.stop() }
      let nodeA = try node(uri, webhook, walking: true, tag: "node-a", in: sandbox)
      defer { nodeA.stop() }
      let nodeB = try node(
        uri, webhook + ["--worker", "node-b"], walking: false, tag: "node-b", in: sandbox)
      defer { nodeB.stop() }
      // Events written by both nodes: node A's walk, node B's accept and submit.
      #expect(await act(nodeB, "sig-101", "accept") == 200)
      #expect(await act(nodeA, "sig-101", "start") == 200)
      #expect(await eventually(60) { arrived(receiver) })
      #expect(await act(nodeB, "sig-101", "submit") == 200)
      let stored = try await Outbox.storedSequences(nodeB)
      #expect(stored.count > 10)
      #expect(await eventually(60) { Set(deliveryCounts(receiver).keys) == Set(stored) })
      // A repeat would come within the poll interval of the first send; the submit's event is
      // the last, so a second node sending it too would have done so by now.
      let twice = deliveryCounts(receiver).filter { $0.value > 1 }
      #expect(twice.isEmpty, "delivered more than once: \(twice.keys.sorted())")
      #expect(Outbox.firstSendsAreInOrder(Outbox.delivered(receiver)))
      #expect(receiver.requests.allSatisfy { $0.signatureValid == true })
      // A clean stop releases the holder's claims: the other node need not wait for the
      // lease to end.
      let holder = try webhookHolder(cluster, uri)
      let node = try #require(
        [nodeA, nodeB].first { holder.hasPrefix("pid \($0.process.processIdentifier) on ") },
        "\(holder)")
      #expect(node.stop().status == 0)
      #expect(
        try !webhookHolder(cluster, uri).hasPrefix("pid \(node.process.processIdentifier) on "))
    }

    /// The node that holds the claim of the (one) webhook of database `uri`: "pid N on HOST".
    private func webhookHolder(_ cluster: PostgresTestCluster, _ uri: String) throws -> String {
      try cluster.sql(
        "SELECT claimed_by FROM delivery_cursors WHERE consumer LIKE 'webhook:%'",
        database: PostgresTestCluster.databaseName(in: uri))
    }

    @Test func aKilledNodesWebhookIsTakenOverWithinItsLease() async throws {
      let (sandbox, cluster, uri) = try database()
      let (receiver, webhook) = try receiver(in: sandbox)
      defer { receiver.stop() }
      let nodeA = try node(uri, webhook, walking: true, tag: "node-a", in: sandbox)
      defer { nodeA.stop() }
      #expect(await act(nodeA, "sig-101", "accept") == 200)
      #expect(await act(nodeA, "sig-101", "start") == 200)
      #expect(await eventually(60) { !Outbox.delivered(receiver).isEmpty })
      // Node B comes while node A delivers: A holds the webhook's claim.
      let nodeB = try node(
        uri, webhook + ["--worker", "node-b"], walking: false, tag: "node-b", in: sandbox)
      defer { nodeB.stop() }
      let holder = try webhookHolder(cluster, uri)
      #expect(holder.hasPrefix("pid \(nodeA.process.processIdentifier) on "), "\(holder)")
      #expect(await eventually(60) { Outbox.delivered(receiver).count >= 15 })
      nodeA.crash()
      let killed = Date().timeIntervalSince1970
      let twice = deliveryCounts(receiver).filter { $0.value > 1 }
      #expect(
        twice.isEmpty, "delivered twice while node A held the webhook: \(twice.keys.sorted())")
      // Events after the kill, all by node B.
      #expect(await act(nodeB, "sig-101", "cancel") == 200)
      #expect(await act(nodeB, "sig-102", "accept") == 200)
      #expect(await act(nodeB, "sig-102", "cancel") == 200)
      let stored = try await Outbox.storedSequences(nodeB)
      #expect(await eventually(60) { Set(stored).isSubset(of: deliveryCounts(receiver).keys) })
      let missing = Set(stored).subtracting(deliveryCounts(receiver).keys)
      #expect(missing.isEmpty, "never delivered: \(missing.sorted())")
      #expect(Outbox.firstSendsAreInOrder(Outbox.delivered(receiver)))
      // Node B took the webhook over once node A's lease (10 s) ran out, plus a margin for
      // the retry (every lease / 3) and a busy machine.
      let first = try #require(receiver.requests.first { $0.time > killed }?.time)
      print("node B's first delivery after node A's kill: \(first - killed) s")
      #expect(
        first - killed < 10 + 10, "node B's first delivery \(first - killed) s after the kill")
    }

    @Test(.enabled(if: MosquittoBroker.isAvailable, "needs mosquitto"))
    func twoNodesWithOneBrokerPublishEachEventOnce() async throws {
      let (sandbox, _, uri) = try database()
      let broker = try MosquittoBroker(in: sandbox.directory)
      defer { broker.stop() }
      let subscriber = try MosquittoSubscriber(
        port: broker.port, filter: "missiontrack/#", in: sandbox.directory)
      defer { subscriber.stop() }
      let nodeA = try node(uri, ["--mqtt", broker.url], walking: true, tag: "node-a", in: sandbox)
      defer { nodeA.stop() }
      let nodeB = try node(
        uri, ["--mqtt", broker.url, "--worker", "node-b"], walking: false, tag: "node-b",
        in: sandbox)
      defer { nodeB.stop() }
      #expect(await act(nodeA, "sig-101", "accept") == 200)
      #expect(await act(nodeA, "sig-101", "start") == 200)
      let topic = "missiontrack/missions/sig-101/events "
      func published(_ messages: [String]) -> [Int64] {
        messages.filter { $0.hasPrefix(topic) }.compactMap(Outbox.sequence(inMessage:))
      }
      subscriber.wait(timeout: 60) { $0.contains { $0.hasPrefix(topic) && $0.contains("arrived") } }
      #expect(await act(nodeB, "sig-101", "submit") == 200)
      let stored = try await Outbox.storedSequences(nodeB)
      #expect(stored.count > 10)
      let seqs = published(subscriber.wait(timeout: 60) { Set(published($0)) == Set(stored) })
      #expect(Set(seqs) == Set(stored))
      let twice = Dictionary(seqs.map { ($0, 1) }, uniquingKeysWith: +).filter { $0.value > 1 }
      #expect(twice.isEmpty, "published more than once: \(twice.keys.sorted())")
      #expect(Outbox.firstSendsAreInOrder(seqs.map { (seq: $0, mission: "sig-101") }))
    }
  }
}
