import Foundation
import MissionStore
import MissionTracking
import ServiceTestSupport
import Testing

@testable import MissionService

/// `/v1/ingest/…` over real sockets while the requests wait suspended (`HTTPServer`
/// suspends an ingest request's connection until the engine has decided it with the others
/// waiting, `IngestWriter`): many workers' requests at once, pipelined on kept-alive
/// connections, are each answered as their client needs and stored exactly once; a client
/// that leaves while its requests wait loses none of what was accepted.
@Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct IngestSuspensionTests {
  /// Workers w0…w5, each tracking mission c0…c5 (far apart), even ones with an OsmAnd
  /// device `osm-i`, odd ones with an Overland device `ovl-i`, every secret `s-i`.
  static func trackWorkers(_ server: InProcessService, count: Int) async throws {
    let csv =
      "id,lat,lon,title\n"
      + (0..<count).map { "c\($0),\(50 + Double($0) * 0.1),10,worker \($0)" }.joined(
        separator: "\n") + "\n"
    let imported = try await server.send("POST", "/v1/missions", contentType: "text/csv", csv)
    #expect(imported.status == 200 || imported.status == 201, "import: \(imported.text)")
    for index in 0..<count {
      let device =
        index % 2 == 0
        ? WorkerDevice(ingestProtocol: .osmand, deviceID: "osm-\(index)", secret: "s-\(index)")
        : WorkerDevice(ingestProtocol: .overland, deviceID: "ovl-\(index)", secret: "s-\(index)")
      try server.database.putWorker(Worker(id: "w\(index)", devices: [device]))
      let accepted = try await server.send(
        "POST", "/v1/missions/c\(index)/accept", contentType: "application/json",
        #"{"worker_id":"w\#(index)"}"#)
      #expect(accepted.status == 200, "accept: \(accepted.text)")
      let started = try await server.request("POST", "/v1/missions/c\(index)/start")
      #expect(started.status == 200, "start: \(started.text)")
    }
  }

  /// Position `k` of worker `index`: 12 m north of the one before, one second later.
  static func position(_ index: Int, _ k: Int, from t0: Date) -> (
    time: Date, latitude: Double, longitude: Double
  ) {
    (t0 + Double(k), 50 + Double(index) * 0.1 + Double(k) * 12 / PhoneFixtures.metersPerDegree, 10)
  }

  /// The bytes of OsmAnd request `k` of worker `index`.
  static func osmand(_ index: Int, _ k: Int, from t0: Date, port: Int) -> String {
    let p = position(index, k, from: t0)
    return "GET /v1/ingest/osmand?id=osm-\(index)&secret=s-\(index)"
      + "&timestamp=\(Int(p.time.timeIntervalSince1970))&lat=\(p.latitude)&lon=\(p.longitude)"
      + " HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
  }

  /// The bytes of an Overland request carrying positions `ks` of worker `index`.
  static func overland(_ index: Int, _ ks: Range<Int>, from t0: Date, port: Int) -> String {
    let body = PhoneFixtures.overland(
      ks.map { position(index, $0, from: t0) }, deviceID: "ovl-\(index)")
    return "POST /v1/ingest/overland HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
      + "Content-Type: application/json\r\nAuthorization: Bearer s-\(index)\r\n"
      + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
  }

  /// The whole responses in `bytes`, in order (each body as long as its Content-Length).
  static func responses(_ bytes: [UInt8]) -> [RawHTTP.Response] {
    var rest = bytes[...]
    var found: [RawHTTP.Response] = []
    let separator: [UInt8] = [13, 10, 13, 10]
    while let end = rest.firstRange(of: separator),
      let head = RawHTTP.parse(Array(rest[..<end.upperBound]))
    {
      let length = Int(head.headers["content-length"] ?? "0") ?? 0
      guard rest.distance(from: end.upperBound, to: rest.endIndex) >= length else { break }
      let bodyEnd = rest.index(end.upperBound, offsetBy: length)
      if let response = RawHTTP.parse(Array(rest[..<bodyEnd])) { found.append(response) }
      rest = rest[bodyEnd...]
    }
    return found
  }

  /// The stored fix times of mission `id`, seconds after `t0`.
  static func storedSeconds(_ path: String, mission id: String, from t0: Date) throws -> [Int] {
    try PhoneFixtures.storedTrack(path, mission: id).map {
      Int(($0.time.timeIntervalSince1970 - t0.timeIntervalSince1970).rounded())
    }
  }

  @Test func manyWorkersRequestsAtOnceArePipelinedAnsweredAsTheirClientNeedsAndStoredOnce()
    async throws
  {
    let sandbox = try ServiceSandbox()
    let workers = 6
    let perWorker = 60
    var first = Date()
    try await InProcessService.run(sandbox, listen: true) { server in
      try await Self.trackWorkers(server, count: workers)
      // After every start: a fix dated before its mission's start is untracked.
      let t0 = PhoneFixtures.nextSecond()
      first = t0
      let port = try #require(server.url.flatMap { URL(string: $0)?.port })
      let databasePath = sandbox.databasePath
      // Each worker's requests all written at once on one kept-alive connection, every
      // worker on its own thread at the same time: dozens wait suspended together.
      let answers = try await withThrowingTaskGroup(of: (Int, [RawHTTP.Response], Int).self) {
        group in
        for index in 0..<workers {
          group.addTask {
            let requests =
              index % 2 == 0
              ? (0..<perWorker).map { Self.osmand(index, $0, from: t0, port: port) }
              : stride(from: 0, to: perWorker, by: 10).map {
                Self.overland(index, $0..<($0 + 10), from: t0, port: port)
              }
            let expected = requests.count
            let reader = try MissionDatabase(
              path: databasePath, configuration: StoreConfiguration(readOnly: true))
            let (bytes, stored) = try await withCheckedThrowingContinuation { continuation in
              Thread {
                do {
                  let connection = try RawHTTP(port: port, timeout: 20)
                  connection.send(requests.joined())
                  var bytes: [UInt8] = []
                  let deadline = Date().addingTimeInterval(20)
                  while Self.responses(bytes).count < expected && Date() < deadline {
                    bytes += connection.readAvailable(waiting: 0.2)
                  }
                  // What is committed the moment the last answer came.
                  let stored = try reader.track(ofMission: "c\(index)").count
                  continuation.resume(returning: (bytes, stored))
                } catch {
                  continuation.resume(throwing: error)
                }
              }.start()
            }
            return (index, Self.responses(bytes), stored)
          }
        }
        var answers: [Int: (responses: [RawHTTP.Response], stored: Int)] = [:]
        for try await (index, responses, stored) in group { answers[index] = (responses, stored) }
        return answers
      }
      for index in 0..<workers {
        let responses = answers[index]?.responses ?? []
        if index % 2 == 0 {
          #expect(responses.count == perWorker, "worker \(index)")
          // Traccar's empty 200 for each position.
          #expect(responses.allSatisfy { $0.status == 200 && $0.body.isEmpty }, "worker \(index)")
        } else {
          #expect(responses.count == perWorker / 10, "worker \(index)")
          #expect(
            responses.allSatisfy { $0.status == 200 && $0.json?["result"] as? String == "ok" },
            "worker \(index): \(responses.map(\.text))")
          // "ok" only once durable: every batch was committed when its answer came.
          #expect(answers[index]?.stored == perWorker, "worker \(index)")
        }
      }
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.positions(metrics, "osmand", "accepted") == perWorker * workers / 2)
      #expect(PhoneFixtures.positions(metrics, "overland", "accepted") == perWorker * workers / 2)
    }
    // Stopped: the group commit of the single positions is flushed too. Each worker's
    // positions once each, in its own mission only.
    for index in 0..<workers {
      #expect(
        try Self.storedSeconds(sandbox.databasePath, mission: "c\(index)", from: first)
          == Array(0..<perWorker), "worker \(index)")
    }
  }

  @Test func aClientThatLeavesWhileItsRequestsWaitLosesNothingAcceptedAndTheServerGoesOn()
    async throws
  {
    let sandbox = try ServiceSandbox()
    // Not `run`: the counts are read once the service has stopped, when every request it
    // took has been answered (to a closed socket or not).
    let server = try await InProcessService(sandbox, listen: true)
    var t0 = Date()
    do {
      try await Self.trackWorkers(server, count: 2)
      t0 = PhoneFixtures.nextSecond()
      let port = try #require(server.url.flatMap { URL(string: $0)?.port })
      // Requests written at once, the connection closed before any answer is read: the
      // answers go to a closed socket.
      for round in 0..<20 {
        let osmand = try RawHTTP(port: port)
        osmand.send((0..<10).map { Self.osmand(0, round * 10 + $0, from: t0, port: port) }.joined())
        let overland = try RawHTTP(port: port)
        overland.send(Self.overland(1, (round * 10)..<(round * 10 + 10), from: t0, port: port))
        shutdown(osmand.fd, Int32(SHUT_RDWR))
        shutdown(overland.fd, Int32(SHUT_RDWR))
      }
      // The server still answers, and what it accepted is stored.
      let after = try await server.request(
        "GET",
        "/v1/ingest/osmand?id=osm-0&secret=s-0&timestamp=\(Int(t0.timeIntervalSince1970) + 1000)"
          + "&lat=\(Self.position(0, 1000, from: t0).latitude)&lon=10")
      #expect(after.status == 200, "\(after.text)")
    } catch {
      await server.stop()
      throw error
    }
    await server.stop()
    let metrics = server.service.ingestMetrics.prometheusText
    let accepted = [
      "osmand": PhoneFixtures.positions(metrics, "osmand", "accepted"),
      "overland": PhoneFixtures.positions(metrics, "overland", "accepted"),
    ]
    // Every position the engine accepted is stored, once, in fix-time order, each batch
    // whole (a request the server never read is not among them).
    let osmand = try Self.storedSeconds(sandbox.databasePath, mission: "c0", from: t0)
    let overland = try Self.storedSeconds(sandbox.databasePath, mission: "c1", from: t0)
    #expect(osmand.count == accepted["osmand"], "\(osmand)")
    #expect(overland.count == accepted["overland"], "\(overland)")
    #expect(osmand.last == 1000)
    #expect(Set(osmand).count == osmand.count && osmand == osmand.sorted())
    #expect(Set(overland).count == overland.count && overland == overland.sorted())
    #expect(overland.count % 10 == 0 && overland.allSatisfy { overland.contains($0 / 10 * 10) })
  }
}
