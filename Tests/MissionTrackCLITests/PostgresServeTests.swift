import Foundation
import PostgresTestSupport
import ServiceTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `missiontrack serve --db postgresql://…`, the built binary over real HTTP on loopback:
/// the API answers as it does on SQLite, two nodes on one database follow each other, and
/// a server it cannot reach fails in one line. (Webhooks and MQTT: `PostgresOutboxTests`;
/// an outage under two nodes: `PostgresOutageTests`.)
@Suite(.binaryBuilt, .postgresInstalled)
struct PostgresServeTests {
  /// sig-101 of the demo missions (radius 40 m).
  static let sig101 = (latitude: 59.61708, longitude: 17.72185)
  static let metersPerDegree = 6_371_008.8 * Double.pi / 180

  /// A point `north` metres north of sig-101.
  static func nearSig101(north: Double) -> (latitude: Double, longitude: Double) {
    (sig101.latitude + north / metersPerDegree, sig101.longitude)
  }

  /// `text` with every RFC 3339 time replaced by `<time>`: the only values of the exchange
  /// made at run time (transition and fix times follow the wall clock).
  static func normalized(_ text: String) -> String {
    text.replacingOccurrences(
      of: #"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z"#, with: "<time>",
      options: .regularExpression)
  }

  /// One request of the exchange: method, path, body and its type (a JSON body unless said).
  struct Step {
    var method: String
    var path: String
    var body: String?
    var type = "application/json"
    var headers: [String: String] = [:]

    init(
      _ method: String, _ path: String, _ body: String? = nil, type: String = "application/json",
      headers: [String: String] = [:]
    ) {
      self.method = method
      self.path = path
      self.body = body
      self.type = type
      self.headers = headers
    }

    /// Sends it to `server`; its status and normalised body as one transcript line.
    func line(_ server: ServeProcess) throws -> String {
      var headers = self.headers
      if body != nil { headers["Content-Type"] = type }
      let response = try RawHTTP.request(
        port: server.port, method, path, headers: headers, body: Array((body ?? "").utf8))
      // The query's time is the run's.
      let shown = path.replacingOccurrences(
        of: "timestamp=[0-9]+", with: "timestamp=<time>", options: .regularExpression)
      return "\(method) \(shown) -> \(response.status) "
        + normalized(String(decoding: response.body, as: UTF8.self))
    }
  }

  /// Missions imported, replaced, paged and found nearby; a phone's worker registered (and
  /// refusals); sig-101 accepted and started for it; refusals while it is tracked.
  static let before: [Step] = [
    Step(
      "POST", "/v1/missions",
      (try? String(contentsOfFile: CLISandbox.demoMissions, encoding: .utf8)) ?? "",
      type: "application/geo+json"),
    Step(
      "PUT", "/v1/missions/extra-é",
      #"{"title":"Extra","lat":59.62,"lon":17.73,"reward":"12","currency":"SEK"}"#),
    Step("PUT", "/v1/missions/extra-é", #"{"title":"Edited","lat":59.62,"lon":17.73}"#),
    Step("GET", "/v1/missions?limit=2"),
    Step("GET", "/v1/missions?limit=2&after=sig-102"),
    Step("GET", "/v1/missions?state=open&limit=100"),
    Step("GET", "/v1/missions?lat=59.6175&lon=17.7230&radius_m=2000&state=open"),
    Step("GET", "/v1/missions?lat=59.6175&lon=17.7230&k=3"),
    Step(
      "PUT", "/v1/workers/phone",
      #"{"name":"Phone","devices":[{"protocol":"osmand","device_id":"123456","secret":"s3cret"},"#
        + #"{"protocol":"overland","device_id":"iphone","secret":"s3cret"}]}"#),
    Step("PUT", "/v1/workers/bad%20id", #"{"name":"x"}"#),
    Step("PUT", "/v1/workers/other", #"{"devices":[{"protocol":"osmand","device_id":"123456"}]}"#),
    Step("GET", "/v1/workers"),
    Step("GET", "/v1/workers/phone"),
    Step("POST", "/v1/missions/sig-101/accept", #"{"worker_id":"phone"}"#),
    Step("POST", "/v1/missions/sig-102/start"),
    Step("POST", "/v1/missions/sig-101/start"),
    Step("DELETE", "/v1/missions/sig-101"),
    Step("DELETE", "/v1/workers/phone"),
    Step("PUT", "/v1/missions/sig-101", #"{"title":"T","lat":1,"lon":2}"#),
    Step(
      "POST", "/v1/missions?replace=true",
      "id,lat,lon,state,worker_id\nsig-101,1,2,active,phone\n", type: "text/csv"),
    Step("POST", "/v1/missions", "id,lat,lon,state\nx-2,1,2,active\n", type: "text/csv"),
  ]

  /// The phone's positions: OsmAnd's query far out (at `t0`), then an Overland batch
  /// walking in to sig-101, sent twice (a phone that missed the answer: stored once).
  static func phone(at t0: Int) -> [Step] {
    let far = nearSig101(north: -300)
    let formatter = ISO8601DateFormatter()
    let features = [-200.0, -100, -30, 0, 5].enumerated().map { step, north in
      let point = nearSig101(north: north)
      let time = formatter.string(from: Date(timeIntervalSince1970: Double(t0 + 1 + step)))
      return #"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
        + "\(point.longitude),\(point.latitude)"
        + #"]},"properties":{"timestamp":""# + time
        + #"","horizontal_accuracy":5,"device_id":"iphone"}}"#
    }
    let batch = Step(
      "POST", "/v1/ingest/overland", #"{"locations":["# + features.joined(separator: ",") + "]}",
      headers: ["Authorization": "Bearer s3cret"])
    return [
      Step(
        "GET",
        "/v1/ingest/osmand?id=123456&secret=s3cret&timestamp=\(t0)"
          + "&lat=\(far.latitude)&lon=\(far.longitude)"),
      batch, batch,
    ]
  }

  /// What the positions made of sig-101, its end, removals and refusals.
  static let after: [Step] = [
    Step("GET", "/v1/missions/sig-101"),
    Step("GET", "/v1/missions/sig-101/events"),
    Step("GET", "/v1/missions/sig-101/track"),
    Step("GET", "/v1/workers/phone"),
    Step("POST", "/v1/missions/sig-101/submit"),
    Step("POST", "/v1/missions/sig-101/complete"),
    Step("DELETE", "/v1/workers/phone"),
    Step("GET", "/v1/workers/phone"),
    Step("DELETE", "/v1/workers/local"),
    Step("DELETE", "/v1/missions/extra-%C3%A9"),
    Step("GET", "/v1/missions/extra-%C3%A9"),
    Step("GET", "/v1/missions/sig-101"),
    Step("POST", "/v1/missions", "id,lat,lon\nsig-102,1,2\n", type: "text/csv"),
    Step(
      "POST", "/v1/missions?replace=true", "id,lat,lon,state\nn-1,1,2,active\n",
      type: "text/csv"),
  ]

  /// The same sequence of requests against `serve --db DB`: missions (import, PUT, pages,
  /// nearby, one mission, lifecycle actions), workers (PUT, GET, DELETE), a phone's OsmAnd
  /// query and Overland batch, the mission's events, refusals, and the `/v1/events`
  /// catch-up; the transcript of statuses and bodies.
  static func exchange(database: String, in box: CLISandbox) async throws -> [String] {
    // The receiver feeds a worker of its own, so that no mission of the exchange opens it
    // (its connection attempts would put source events among the API's, at times of their
    // own).
    let server = try ServeProcess(
      ["--db", database, "--worker", "rig"], in: box.directory, tag: "serve-exchange")
    defer { _ = server.stop() }
    var lines = try before.map { try $0.line(server) }
    lines += try phone(at: Int(Date().timeIntervalSince1970) + 1).map { try $0.line(server) }
    // The single OsmAnd position joins the group commit (20 ms on SQLite).
    try await Task.sleep(for: .milliseconds(300))
    lines += try after.map { try $0.line(server) }
    // The catch-up of `/v1/events` from the start.
    let client = try SSEClient(port: server.port, lastEventID: 0)
    defer { client.close() }
    _ = await client.wait(timeout: 10) { $0.last?.type == "state" && $0.count > 10 }
    try await Task.sleep(for: .milliseconds(500))
    for event in client.events {
      lines.append("SSE \(event.id ?? -1) \(event.type) \(normalized(event.data))")
    }
    return lines
  }

  @Test func theAPIAnswersOnPostgreSQLAsOnSQLite() async throws {
    let box = try CLISandbox()
    let sqlite = try await Self.exchange(database: box.path("serve.sqlite"), in: box)
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    let postgres = try await Self.exchange(database: uri, in: box)
    #expect(postgres.count == sqlite.count)
    for (onPostgres, onSQLite) in zip(postgres, sqlite) {
      #expect(onPostgres == onSQLite)
    }
    // What the exchange went through, so that "equal" is not equal emptiness.
    #expect(sqlite.contains { $0.hasPrefix("POST /v1/missions/sig-101/submit -> 200") })
    #expect(sqlite.filter { $0.hasPrefix("SSE ") }.count > 10)
    #expect(sqlite.contains { $0.contains(#""state":"arrived""#) })
  }

  @Test func anImportThroughOneNodeIsInTheOthersNearbyWithinOneSecond() async throws {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    let nodeA = try ServeProcess(["--db", uri], in: box.directory, tag: "node-a")
    defer { _ = nodeA.stop() }
    // Each node's receiver feeds a worker of its own: one tracker per worker (the lease is
    // the database's, whichever machine claims it).
    let nodeB = try ServeProcess(
      ["--db", uri, "--worker", "node-b"], in: box.directory, tag: "node-b")
    defer { _ = nodeB.stop() }
    let nearby = "/v1/missions?lat=10.0&lon=20.0&radius_m=1000"
    var latencies: [Double] = []
    for round in 0..<5 {
      let id = "fresh-\(round)"
      let before = try RawHTTP.request(port: nodeB.port, "GET", nearby)
      #expect(!String(decoding: before.body, as: UTF8.self).contains(id))
      let imported = try RawHTTP.request(
        port: nodeA.port, "POST", "/v1/missions", headers: ["Content-Type": "text/csv"],
        body: Array("id,lat,lon\n\(id),10.0,20.00\(round)\n".utf8))
      #expect(imported.status == 201)
      let answered = Date()
      var seen: Double?
      while Date().timeIntervalSince(answered) < 5 {
        let response = try RawHTTP.request(port: nodeB.port, "GET", nearby)
        if String(decoding: response.body, as: UTF8.self).contains(#""id":"\#(id)""#) {
          seen = Date().timeIntervalSince(answered)
          break
        }
        usleep(10_000)
      }
      let latency = try #require(seen, "\(id) never reached node B")
      latencies.append(latency)
    }
    print("import on node A to node B's nearby, seconds: \(latencies)")
    #expect(latencies.allSatisfy { $0 < 1 }, "\(latencies)")
  }

  /// A client behind a load balancer without stickiness: each request of a mission's
  /// lifecycle reaches the other node the moment the previous one was answered, often
  /// before that node heard of it. Each is decided against the database's state, not
  /// refused from a node's stale view (`EngineOnPostgresTests` makes the stale view
  /// certain, with engines that never poll).
  @Test func eachStepOfALifecycleMayReachTheOtherNodeAtOnce() throws {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    let nodes = try ["a", "b"].map { name in
      try ServeProcess(
        ["--db", uri, "--worker", "rig-\(name)"], in: box.directory, tag: "step-\(name)")
    }
    defer { for node in nodes { _ = node.stop() } }
    // A kept-alive connection to each node, as the balancer keeps them: the next request
    // is on its way as soon as the previous answer is read.
    let connections = try nodes.map { try RawHTTP(port: $0.port) }
    for round in 0..<10 {
      let id = "hop-\(round)"
      for (step, (path, body)) in [
        ("/v1/missions", "id,lat,lon\n\(id),10.0,20.0\n"),
        ("/v1/missions/\(id)/accept", ""), ("/v1/missions/\(id)/start", ""),
        ("/v1/missions/\(id)/submit", ""),
      ].enumerated() {
        let node = (round + step) % 2
        let type = step == 0 ? "text/csv" : "application/json"
        _ = connections[node].send(
          "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(nodes[node].port)\r\n"
            + "Content-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)")
        let response = connections[node].readResponse(within: 10)
        #expect(
          (response?.status ?? 0) < 300 && response != nil,
          "\(path) on node \(node): \(response?.text ?? "no answer")")
      }
    }
  }

  @Test func serveOnAServerThatIsDownFailsInOneLineAsABadPathDoes() throws {
    let box = try CLISandbox()
    let closedPort = try RawHTTP.freeLoopbackPort()
    let down = try ServeProcess.run(
      [
        "serve", "--listen", "127.0.0.1:0", "--db",
        "postgresql://postgres:hunter2@127.0.0.1:\(closedPort)/missions",
      ], in: box.directory, timeout: 30)
    let badPath = try ServeProcess.run(
      ["serve", "--listen", "127.0.0.1:0", "--db", box.path("no/such/dir/x.sqlite")],
      in: box.directory, timeout: 30)
    #expect(badPath.status == 1)
    #expect(down.status == badPath.status, "\(down.err)")
    #expect(down.err.split(separator: "\n").count == 1, "\(down.err)")
    #expect(down.err.contains("Connection refused") && !down.err.contains("hunter2"), "\(down.err)")
  }

  @Test func anyNodeTakesAPhonesPositionsAndAReplayOfItsWorkerIsRefusedMeanwhile() throws {
    let box = try CLISandbox()
    let uri = try PostgresTestCluster.shared.get().createDatabase()
    let nodeA = try ServeProcess(["--db", uri], in: box.directory, tag: "lease-a")
    defer { _ = nodeA.stop() }
    // Node B's receiver would feed `local` too: refused while node A holds it, naming A.
    let refused = try ServeProcess.run(
      ["serve", "--listen", "127.0.0.1:0", "--db", uri], in: box.directory, timeout: 30)
    #expect(refused.status == 1)
    #expect(refused.err.split(separator: "\n").count == 1, "\(refused.err)")
    #expect(
      refused.err.contains(
        "worker local on database \(PostgresTestCluster.databaseName(in: uri))"
          + " is already being tracked by pid \(nodeA.process.processIdentifier) (missiontrack serve)"
      ),
      "\(refused.err)")
    // A phone's worker: both nodes take its positions (they share its lease), and a replay
    // of the worker is refused while they track it.
    let nodeB = try ServeProcess(
      ["--db", uri, "--worker", "rig-b"], in: box.directory, tag: "lease-b")
    defer { _ = nodeB.stop() }
    for (method, path, body) in [
      ("POST", "/v1/missions", "id,lat,lon\nm-1,59.6,17.7\n"),
      (
        "PUT", "/v1/workers/phone",
        #"{"devices":[{"protocol":"osmand","device_id":"p1","secret":"s3cret"}]}"#
      ),
      ("POST", "/v1/missions/m-1/accept", #"{"worker_id":"phone"}"#),
      ("POST", "/v1/missions/m-1/start", ""),
    ] {
      let response = try RawHTTP.request(
        port: nodeA.port, method, path,
        headers: [
          "Content-Type": method == "POST" && path == "/v1/missions"
            ? "text/csv" : "application/json"
        ],
        body: Array(body.utf8))
      #expect(response.status < 300, "\(path): \(String(decoding: response.body, as: UTF8.self))")
    }
    var time = Int(Date().timeIntervalSince1970) + 1
    // 111 m apart 20 s apart: each is delivered past the distance filter, at a walker's pace.
    func position(_ node: ServeProcess, latitude: Double) throws -> RawHTTP.Response {
      time += 20
      return try RawHTTP.request(
        port: node.port, "GET",
        "/v1/ingest/osmand?id=p1&secret=s3cret&timestamp=\(time)&lat=\(latitude)&lon=17.7")
    }
    #expect(try position(nodeA, latitude: 59.61).status == 200)
    let elsewhere = try position(nodeB, latitude: 59.611)
    #expect(elsewhere.status == 200, "\(elsewhere.text)")
    let replay = try ServeProcess.run(
      ["replay", CLISandbox.walkNMEA, "--worker", "phone", "--db", uri], in: box.directory,
      timeout: 30)
    #expect(replay.status == 1)
    #expect(replay.err.split(separator: "\n").count == 1, "\(replay.err)")
    #expect(
      replay.err.contains("worker phone on database")
        && replay.err.contains("is already being tracked by pid")
        && replay.err.contains("(missiontrack serve)"),
      "\(replay.err)")
    let stored = try PostgresTestCluster.shared.get().sql(
      "SELECT count(*) FROM track WHERE mission_id = 'm-1'",
      database: PostgresTestCluster.databaseName(in: uri))
    #expect(stored.trimmingCharacters(in: .whitespacesAndNewlines) == "2")
  }
}
