import Foundation
import PostgresTestSupport
import ServiceTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// PostgreSQL stopped for 10 s under two running `serve` nodes, the built binary over real
/// HTTP: `/healthz` says so at once, the nodes reconnect, their grids catch up from the
/// change log, and every position a node acknowledged is in the database afterwards
/// (DESIGN §10).
@Suite(.binaryBuilt, .postgresInstalled)
struct PostgresOutageTests {
  /// Phone `phone`'s position (OsmAnd query form, device pN of worker phoneN on mission
  /// m-N) `step` × 111 m north of its mission, `step` × 20 s after `t0`: each one delivered
  /// past the distance filter at a walker's pace.
  static func position(
    _ step: Int, of phone: Int, t0: Int, to node: ServeProcess, timeout: Double = 10
  ) throws -> RawHTTP.Response {
    try RawHTTP.request(
      port: node.port, "GET",
      "/v1/ingest/osmand?id=p\(phone)&secret=s3cret&timestamp=\(t0 + step * 20)"
        + "&lat=\(59.6 + Double(phone) * 0.1 + Double(step) * 0.001)&lon=17.7",
      timeout: timeout)
  }

  @Test func twoNodesRideOutTenSecondsWithoutTheirDatabaseAndLoseNothingAcknowledged() throws {
    let box = try CLISandbox()
    // A cluster of its own: stopping it must not disturb the other tests.
    let cluster = try PostgresTestCluster()
    let uri = try cluster.createDatabase()
    let name = PostgresTestCluster.databaseName(in: uri)
    let (nodeA, nodeB) = try ServeProcess.twoNodes(on: uri, in: box, tag: "outage")
    defer {
      _ = nodeA.stop()
      _ = nodeB.stop()
    }
    let nodes = [nodeA, nodeB]
    let phones = [1, 2]
    let setUp =
      [("POST", "/v1/missions", "id,lat,lon\nm-1,59.7,17.7\nm-2,59.8,17.7\n")]
      + phones.flatMap { phone in
        [
          (
            "PUT", "/v1/workers/phone\(phone)",
            #"{"devices":[{"protocol":"osmand","device_id":"p\#(phone)","secret":"s3cret"}]}"#
          ),
          ("POST", "/v1/missions/m-\(phone)/accept", #"{"worker_id":"phone\#(phone)"}"#),
          ("POST", "/v1/missions/m-\(phone)/start", ""),
        ]
      }
    for (method, path, body) in setUp {
      let response = try RawHTTP.request(
        port: nodeA.port, method, path,
        headers: ["Content-Type": path == "/v1/missions" ? "text/csv" : "application/json"],
        body: Array(body.utf8))
      #expect(response.status < 300, "\(path): \(response.text)")
    }
    let t0 = Int(Date().timeIntervalSince1970) + 1
    // The positions a node answered 200 for, by phone: each must be stored.
    var acknowledged: [Int: [Int]] = [:]
    func send(_ steps: ClosedRange<Int>) throws {
      for step in steps {
        for phone in phones {
          let answer = try Self.position(step, of: phone, t0: t0, to: nodes[(step + phone) % 2])
          #expect(answer.status == 200, "phone \(phone) step \(step): \(answer.text)")
          if answer.status == 200 { acknowledged[phone, default: []].append(step) }
        }
      }
    }
    try send(1...4)

    try cluster.stop()
    let stopped = Date()
    for node in nodes {
      let down = try RawHTTP.request(port: node.port, "GET", "/healthz")
      #expect(down.status == 503)
      #expect(down.text.hasPrefix("database not writable"), "\(down.text)")
    }
    #expect(Date().timeIntervalSince(stopped) < 3)
    // A position of each phone during the outage, one to each node, on threads of their
    // own: a node holds a request up to 30 s for the server to come back, then answers it
    // (200, stored). (One phone sends one position at a time: two of one worker in flight
    // at once may be decided in the other order, and then the older one is dropped.)
    let during = Mutex<[(phone: Int, status: Int?)]>([])
    let sending = DispatchGroup()
    for phone in phones {
      DispatchQueue.global().async(group: sending) {
        let status = try? Self.position(
          5, of: phone, t0: t0, to: nodes[(5 + phone) % 2], timeout: 60
        ).status
        during.withLock { $0.append((phone, status)) }
      }
    }
    Thread.sleep(forTimeInterval: max(0, 10 - Date().timeIntervalSince(stopped)))
    try cluster.start()
    let restarted = Date()
    sending.wait()
    for (phone, status) in during.withLock({ $0 }) {
      #expect(status == 200, "phone \(phone) during the outage: \(status ?? 0)")
      if status == 200 { acknowledged[phone, default: []].append(5) }
    }
    // A request held through the outage is answered soon after the server is back.
    #expect(Date().timeIntervalSince(restarted) < 5)

    // Another process writes once the server is back: both nodes' grids catch up from the
    // change log.
    let imported = try ServeProcess.run(
      ["missions", "import", CLISandbox.demoMissions, "--db", uri], in: box.directory)
    #expect(imported.status == 0, "\(imported.err)")
    for node in nodes {
      let deadline = Date().addingTimeInterval(10)
      var seen = false
      while Date() < deadline, !seen {
        let nearby = try RawHTTP.request(
          port: node.port, "GET", "/v1/missions?lat=59.6175&lon=17.7230&radius_m=2000")
        seen = nearby.text.contains(#""id":"sig-101""#)
        if !seen { usleep(50_000) }
      }
      #expect(seen, "node on port \(node.port) never saw the import")
      #expect(try RawHTTP.request(port: node.port, "GET", "/healthz").status == 200)
    }
    // The workers are still tracked on both nodes.
    try send(6...9)
    for phone in phones {
      let stored = try cluster.sql(
        "SELECT string_agg(extract(epoch FROM time)::bigint::text, ',' ORDER BY time)"
          + " FROM track WHERE mission_id = 'm-\(phone)'", database: name
      ).trimmingCharacters(in: .whitespacesAndNewlines)
      let times = Set(stored.split(separator: ",").compactMap { Int($0) })
      let lost = (acknowledged[phone] ?? []).filter { !times.contains(t0 + $0 * 20) }
      #expect(lost.isEmpty, "phone \(phone): acknowledged, not stored: \(lost); stored \(stored)")
      #expect(acknowledged[phone]?.count == 9)
    }
  }
}
