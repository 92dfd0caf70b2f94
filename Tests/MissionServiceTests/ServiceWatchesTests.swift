import Foundation
import ServiceTestSupport
import Testing

/// Watches (`mission_nearby` over SSE) and events filtered by worker, over real HTTP on
/// loopback to an in-process service (`InProcessService` with `listen`).
@Suite(.serialized, .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct ServiceWatchesTests {
  /// The port of an in-process service that listens.
  static func port(_ server: InProcessService) throws -> Int {
    let url = try #require(server.url)
    return try #require(url.split(separator: ":").last.flatMap { Int($0) })
  }

  /// The decoded `data` of `events` of `type`.
  static func objects(_ events: [SSEClient.Event], type: String) -> [[String: Any]] {
    events.filter { $0.type == type }.compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.data.utf8))) as? [String: Any]
    }
  }

  @Test func aMissionEnteringAWatchGivesOneNearbyEventEachTime() async throws {
    let sandbox = try ServiceSandbox(demo: false)
    try await InProcessService.run(sandbox, listen: true) { server in
      let port = try Self.port(server)
      let created = try await ServiceWorkersTests.json(
        server, "POST", "/v1/watches", #"{"lat":10,"lon":20,"radius_m":1000}"#)
      #expect(created.status == 201, "\(created.text)")
      let watch = try #require(created.json?["watch"] as? [String: Any])
      let id = try #require(watch["id"] as? String)
      #expect(watch["state"] as? String == "open" && watch["radius_m"] as? Double == 1000)
      let live = try SSEClient(port: port)
      // A live stream starts at the log's end when the server subscribes it: before that,
      // the import's event would be missed, however long a fixed wait.
      #expect(await live.waitUntilSubscribed())

      // Imported inside: one event; outside: none.
      let inside = #"[{"id":"in","lat":10.001,"lon":20},{"id":"out","lat":11,"lon":20}]"#
      #expect(
        try await server.send("POST", "/v1/missions", contentType: "application/json", inside)
          .status == 201)
      #expect(await live.wait(timeout: 60) { Self.objects($0, type: "mission_nearby").count == 1 })
      // Moved out, then back in: a second one; a PUT that stays inside gives none.
      for lat in ["11", "10.001", "10.002"] {
        let moved = try await ServiceWorkersTests.json(
          server, "PUT", "/v1/missions/in", #"{"lat":\#(lat),"lon":20}"#)
        #expect(moved.status == 200, "\(moved.text)")
      }
      #expect(await live.wait(timeout: 60) { Self.objects($0, type: "mission_nearby").count == 2 })
      _ = await live.wait(timeout: 1) { _ in false }
      let nearby = Self.objects(live.events, type: "mission_nearby")
      #expect(nearby.count == 2)
      #expect(
        nearby.allSatisfy { $0["mission_id"] as? String == "in" && $0["watch_id"] as? String == id }
      )
      let distance = nearby.first?["distance_m"] as? Double ?? 0
      #expect(abs(distance - 111.2) < 1, "distance_m \(distance)")
      let metrics = try await ServiceCheck.get(server, "/metrics").text
      #expect(metrics.contains(#"missiontrack_events_total{type="mission_nearby"} 2"#))

      // The watch is listed, shown and removed; after that, nothing more.
      let list = try await ServiceCheck.get(server, "/v1/watches")
      #expect((list.json?["watches"] as? [[String: Any]])?.map { $0["id"] as? String } == [id])
      #expect(try await ServiceCheck.get(server, "/v1/watches/\(id)").status == 200)
      #expect(try await server.request("DELETE", "/v1/watches/\(id)").status == 200)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/watches/\(id)"), 404)
      ServiceCheck.error(try await server.request("DELETE", "/v1/watches/\(id)"), 404)
      _ = try await ServiceWorkersTests.json(
        server, "PUT", "/v1/missions/in", #"{"lat":11,"lon":20}"#)
      _ = try await ServiceWorkersTests.json(
        server, "PUT", "/v1/missions/in", #"{"lat":10.001,"lon":20}"#)
      _ = await live.wait(timeout: 1.5) { _ in false }
      #expect(Self.objects(live.events, type: "mission_nearby").count == 2)
      live.close()
    }
  }

  @Test func hostileWatchBodiesAreRefusedAndAddNothing() async throws {
    let sandbox = try ServiceSandbox(demo: false)
    try await InProcessService.run(sandbox) { server in
      let cases: [(String, Int)] = [
        ("not json", 400), ("[]", 400), (#"{"lat":1"#, 400),
        (#"{"lat":91,"lon":0,"radius_m":1}"#, 422), (#"{"lat":"1","lon":0,"radius_m":1}"#, 422),
        (#"{"lat":1,"lon":181,"radius_m":1}"#, 422), (#"{"lat":1,"lon":0,"radius_m":-1}"#, 422),
        (#"{"lat":1,"lon":0,"radius_m":1e999}"#, 422), (#"{"lat":1,"lon":0}"#, 422),
        (#"{"lat":1,"lon":0,"radius_m":1,"worker_id":"nobody"}"#, 422),
        (#"{"lat":1,"lon":0,"radius_m":1,"worker_id":"a\u0000"}"#, 422),
        (#"{"lat":1,"lon":0,"radius_m":1,"worker_id":3}"#, 422),
        (#"{"lat":1,"lon":0,"radius_m":1,"state":"bogus"}"#, 422),
        (#"{"lat":1,"lon":0,"radius_m":1,"radius":2}"#, 422),
        (#"{"lat":1,"lat":2,"lon":0,"radius_m":1}"#, 422),
      ]
      for (body, status) in cases {
        ServiceCheck.error(
          try await ServiceWorkersTests.json(server, "POST", "/v1/watches", body), status)
      }
      let list = try await ServiceCheck.get(server, "/v1/watches")
      #expect((list.json?["watches"] as? [Any])?.isEmpty == true, "\(list.text)")
      // A watch for a worker, of every state, carries them.
      let any = try await ServiceWorkersTests.json(
        server, "POST", "/v1/watches",
        #"{"lat":1,"lon":0,"radius_m":5,"worker_id":"local","state":"any"}"#)
      let watch = any.json?["watch"] as? [String: Any]
      #expect(watch?["worker_id"] as? String == "local" && watch?["state"] as? String == "any")
    }
  }

  /// A straight walk north to south through (lat 59.6170, lon 17.7240), sig-102's point:
  /// a fix every second, 10 m apart.
  static func walkThroughSig102(in sandbox: ServiceSandbox) throws -> String {
    var points = ""
    let start = Date(timeIntervalSince1970: 1_780_000_000)
    for step in 0...40 {
      let lat = 59.6188 - Double(step) * 0.00009
      let time = ISO8601DateFormatter().string(from: start.addingTimeInterval(Double(step)))
      points += "<trkpt lat=\"\(lat)\" lon=\"17.7240\"><time>\(time)</time></trkpt>\n"
    }
    let gpx = """
      <?xml version="1.0" encoding="UTF-8"?>
      <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1">
      <trk><trkseg>
      \(points)</trkseg></trk></gpx>
      """
    let path = sandbox.path("bo-walk.gpx")
    try gpx.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func twoWorkersEventsAreFilteredByWorkerLiveAndInTheCatchUp() async throws {
    let sandbox = try ServiceSandbox()
    let walk = try Self.walkThroughSig102(in: sandbox)
    try await InProcessService.run(
      sandbox, replay: ServiceSandbox.walkGPX, workerReplays: ["bo": walk], listen: true
    ) { server in
      let port = try Self.port(server)
      #expect(
        try await ServiceWorkersTests.json(server, "PUT", "/v1/workers/bo", "{}").status == 201)
      let onlyBo = try SSEClient(port: port, path: "/v1/events?worker_id=bo")
      let onlyLocal = try SSEClient(port: port, path: "/v1/events?worker_id=local")
      // Both subscribed before the missions start: the walks are replayed as fast as
      // possible, so a stream subscribed a moment late would miss their `enter`.
      #expect(await onlyBo.waitUntilSubscribed())
      #expect(await onlyLocal.waitUntilSubscribed())
      #expect(
        try await ServiceWorkersTests.json(
          server, "POST", "/v1/missions/sig-102/accept", #"{"worker_id":"bo"}"#
        ).status == 200)
      #expect(try await server.request("POST", "/v1/missions/sig-101/accept").status == 200)
      #expect(try await server.request("POST", "/v1/missions/sig-102/start").status == 200)
      #expect(try await server.request("POST", "/v1/missions/sig-101/start").status == 200)
      // Both arrive, each at its own fence, and each stream holds only its worker's events.
      // The walk passes other fences too, and may enter one before its own: the wait is for
      // its own, not for the first `enter`.
      for (client, worker, mission) in [(onlyBo, "bo", "sig-102"), (onlyLocal, "local", "sig-101")]
      {
        #expect(
          await client.wait(timeout: 60) {
            Self.objects($0, type: "enter").contains { $0["fence_id"] as? String == mission }
          }, "\(worker) never entered \(mission)")
        let all = client.events.compactMap {
          (try? JSONSerialization.jsonObject(with: Data($0.data.utf8))) as? [String: Any]
        }
        #expect(!Self.objects(client.events, type: "fix").isEmpty)
        #expect(all.allSatisfy { $0["worker_id"] as? String == worker }, "\(worker)")
        #expect(all.allSatisfy { $0["mission_id"] as? String == mission }, "\(worker)")
      }
      // The catch-up (`after=0`) is filtered alike and holds what the live stream had.
      let catchUp = try SSEClient(port: port, path: "/v1/events?worker_id=bo&after=0")
      let expected = onlyBo.events.count
      #expect(await catchUp.wait(timeout: 60) { $0.count >= expected })
      #expect(catchUp.events.map(\.data).prefix(expected) == onlyBo.events.map(\.data)[...])
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/events?worker_id=nobody"), 404)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/events?worker_id=a%00b"), 422)

      // GET /v1/workers/bo: its mission's fence state and distance from its last fix.
      let bo = try await ServiceCheck.get(server, "/v1/workers/bo")
      let worker = try #require(bo.json?["worker"] as? [String: Any])
      #expect(worker["tracked_mission"] as? String == "sig-102")
      #expect(worker["fence"] as? String == "inside" || worker["fence"] as? String == "outside")
      #expect(worker["distance_m"] is Double)
      #expect((worker["last_fix"] as? [String: Any])?["time"] is String)
      for client in [onlyBo, onlyLocal, catchUp] { client.close() }
    }
  }
}
