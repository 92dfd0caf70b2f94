import Foundation
import PostgresTestSupport
import ServiceTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One worker's positions through two `serve` nodes on one PostgreSQL database, the built
/// binary over real HTTP: any node takes any batch, the nodes' decisions serialize on the
/// session's row, and nothing is stored or decided twice (DESIGN §10). The counts are read
/// from the database itself.
@Suite(.binaryBuilt, .postgresInstalled)
struct PostgresNodesIngestTests {
  /// One position of a walk: its time and the metres north of sig-101.
  struct Step {
    var time: Int
    var north: Double
  }

  /// An Overland batch of `steps` from device `iphone` north of sig-101 of the demo missions
  /// (the feature of Overland's README, with the fields our decoder reads).
  static func overland(_ steps: some Collection<Step>) -> [UInt8] {
    let formatter = ISO8601DateFormatter()
    let features = steps.map { step in
      #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
        + "\(PostgresServeTests.sig101.longitude),"
        + "\(PostgresServeTests.nearSig101(north: step.north).latitude)"
        + #"]},"properties":{"timestamp":""#
        + formatter.string(from: Date(timeIntervalSince1970: Double(step.time)))
        + #"","horizontal_accuracy":5,"speed":6,"device_id":"iphone"}}"#
    }
    return Array((#"{"locations":["# + features.joined(separator: ",") + "]}").utf8)
  }

  /// Sends `batch` to `node` as the phone does; its status and body.
  static func send(_ batch: [UInt8], to node: ServeProcess, timeout: Double = 30) throws
    -> RawHTTP.Response
  {
    try RawHTTP.request(
      port: node.port, "POST", "/v1/ingest/overland",
      headers: ["Content-Type": "application/json", "Authorization": "Bearer s3cret"],
      body: batch, timeout: timeout)
  }

  /// The answer of `query` on database `name` of the shared cluster, trimmed.
  static func sql(_ query: String, _ name: String) throws -> String {
    try PostgresTestCluster.shared.get().sql(query, database: name)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func oneWorkersBatchesThroughTwoNodesAreStoredOnceAndArriveOnce() throws {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    let name = PostgresTestCluster.databaseName(in: uri)
    let (nodeA, nodeB) = try ServeProcess.twoNodes(on: uri, in: box, tag: "node")
    defer {
      _ = nodeA.stop()
      _ = nodeB.stop()
    }
    for (node, method, path, body, type) in [
      (
        nodeA, "POST", "/v1/missions",
        (try? String(contentsOfFile: CLISandbox.demoMissions, encoding: .utf8)) ?? "",
        "application/geo+json"
      ),
      (
        nodeB, "PUT", "/v1/workers/walker",
        #"{"devices":[{"protocol":"overland","device_id":"iphone","secret":"s3cret"}]}"#,
        "application/json"
      ),
      (
        nodeA, "POST", "/v1/missions/sig-101/accept", #"{"worker_id":"walker"}"#, "application/json"
      ),
      (nodeB, "POST", "/v1/missions/sig-101/start", "", "application/json"),
    ] {
      let response = try RawHTTP.request(
        port: node.port, method, path, headers: ["Content-Type": type], body: Array(body.utf8))
      #expect(response.status < 300, "\(path): \(response.text)")
    }
    // 200 fixes 12 m apart every 2 s (each delivered past the 10 m filter), from 2,388 m
    // south of sig-101 to its centre: the first inside its 40 m is number 196 (36 m south).
    let t0 = Int(Date().timeIntervalSince1970) + 1
    let walk = (0..<200).map { Step(time: t0 + $0 * 2, north: -2388 + Double($0) * 12) }
    let batches = stride(from: 0, to: walk.count, by: 50).map { Self.overland(walk[$0..<$0 + 50]) }
    let expectOK = { (response: RawHTTP.Response, what: String) in
      #expect(
        response.status == 200 && response.text.hasPrefix(#"{"result":"ok""#),
        "\(what): \(response.text)")
    }
    expectOK(try Self.send(batches[0], to: nodeA), "batch 0 to A")
    expectOK(try Self.send(batches[1], to: nodeB), "batch 1 to B")
    // Batch 2 to both nodes at once: a phone that gave up on its answer and resent it
    // through the load balancer. (Blocking sends run on threads of their own, not on the
    // cooperative pool the suite's other tests share.)
    let both = Mutex<[RawHTTP.Response?]>([])
    DispatchQueue.concurrentPerform(iterations: 2) { index in
      let answer = try? Self.send(batches[2], to: [nodeA, nodeB][index])
      both.withLock { $0.append(answer) }
    }
    for answer in both.withLock({ $0 }) {
      #expect(
        answer?.status == 200 && answer?.text.hasPrefix(#"{"result":"ok""#) == true,
        "\(answer?.text ?? "no answer")")
    }
    expectOK(try Self.send(batches[3], to: nodeA), "batch 3 to A")
    #expect(
      try Self.sql(
        "SELECT count(*), count(DISTINCT time) FROM track WHERE mission_id = 'sig-101'", name)
        == "200|200")
    let arrivals = try Self.sql(
      """
      SELECT string_agg(extract(epoch FROM time)::bigint::text, ',') FROM events
      WHERE mission_id = 'sig-101' AND to_state = 'arrived'
      """, name)
    #expect(arrivals == String(walk[196].time), "arrivals at \(arrivals)")
    #expect(
      try Self.sql(
        "SELECT count(*) FROM events WHERE mission_id = 'sig-101' AND type = 'enter' AND fence_id = 'sig-101'",
        name)
        == "1")
    #expect(
      try Self.sql(
        "SELECT count(*) FROM transitions WHERE mission_id = 'sig-101' AND to_state = 'arrived'",
        name) == "1")

    // Node A is killed while it decides a long batch (3,000 fixes walking on north); the
    // phone, with no answer, sends it again and the load balancer picks node B.
    let on = (200..<3200).map { Step(time: t0 + $0 * 2, north: Double($0 - 199) * 12) }
    let long = Self.overland(on)
    let lost = Mutex<RawHTTP.Response?>(nil)
    let sending = DispatchGroup()
    DispatchQueue.global().async(group: sending) {
      let answer = try? Self.send(long, to: nodeA, timeout: 5)
      lost.withLock { $0 = answer }
    }
    Thread.sleep(forTimeInterval: 0.15)
    nodeA.crash()
    sending.wait()
    let lostAnswer = lost.withLock { $0 }
    #expect(lostAnswer == nil || lostAnswer?.status == 200, "\(lostAnswer?.text ?? "")")
    expectOK(try Self.send(long, to: nodeB, timeout: 60), "the long batch again to B")
    let track = try Self.sql(
      "SELECT count(*), count(DISTINCT time) FROM track WHERE mission_id = 'sig-101'", name)
    #expect(track == "3200|3200", "track rows: \(track)")
    #expect(
      try Self.sql(
        """
        SELECT count(*) FROM events WHERE mission_id = 'sig-101' AND type = 'exit' AND fence_id = 'sig-101'
        """, name) == "1")
    let fixes = try Self.sql(
      """
      SELECT count(*), count(DISTINCT time) FROM events WHERE mission_id = 'sig-101' AND type = 'fix'
      """, name)
    #expect(fixes == "3200|3200", "fix events: \(fixes)")
  }
}
