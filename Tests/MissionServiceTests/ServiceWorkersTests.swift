import Foundation
import ServiceTestSupport
import Synchronization
import Testing

/// Workers on one service (DESIGN §7): `/v1/workers…`, accept with a worker, one tracked
/// mission per worker, events by worker, hostile ids and bodies. In-process
/// (`InProcessService`), beside the serialized `ServeSuite`.
@Suite(.serialized, .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct ServiceWorkersTests {
  /// `method path` with a JSON body.
  static func json(_ server: InProcessService, _ method: String, _ path: String, _ body: String)
    async throws -> RawHTTP.Response
  {
    try await server.send(method, path, contentType: "application/json", body)
  }

  /// The `workers` ids of `GET /v1/workers`.
  static func workerIDs(_ server: InProcessService) async throws -> [String] {
    let list = try await ServiceCheck.get(server, "/v1/workers")
    return ((list.json?["workers"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
  }

  @Test func workersAreCreatedShownListedAndRemovedWithoutTheirSecrets() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      #expect(try await Self.workerIDs(server) == ["local"])
      let body =
        #"{"name":"Bo","devices":[{"protocol":"owntracks","device_id":"bo/phone","secret":"s3cret-value-17"}]}"#
      let created = try await Self.json(server, "PUT", "/v1/workers/bo", body)
      #expect(created.status == 201, "\(created.text)")
      let replaced = try await Self.json(server, "PUT", "/v1/workers/bo", body)
      #expect(replaced.status == 200, "\(replaced.text)")
      let list = try await ServiceCheck.get(server, "/v1/workers")
      #expect(try await Self.workerIDs(server) == ["bo", "local"])
      #expect(!list.text.contains("s3cret"), "a secret is shown: \(list.text)")
      let workers = try #require(list.json?["workers"] as? [[String: Any]])
      let bo = try #require(workers.first)
      #expect(bo["name"] as? String == "Bo")
      #expect(bo["tracked_mission"] is NSNull && bo["last_fix"] is NSNull)
      let devices = try #require(bo["devices"] as? [[String: Any]])
      #expect(devices.first?["protocol"] as? String == "owntracks")
      #expect(devices.first?["device_id"] as? String == "bo/phone")
      let shown = try await ServiceCheck.get(server, "/v1/workers/bo")
      #expect(shown.status == 200)
      #expect(!shown.text.contains("s3cret"))
      let worker = try #require(shown.json?["worker"] as? [String: Any])
      #expect(worker["mission"] is NSNull && worker["fence"] is NSNull)
      // A device is one worker's: another worker naming it is 409, and nothing changes.
      let taken = try await Self.json(
        server, "PUT", "/v1/workers/al",
        #"{"devices":[{"protocol":"owntracks","device_id":"bo/phone"}]}"#)
      ServiceCheck.error(taken, 409)
      #expect(try await Self.workerIDs(server) == ["bo", "local"])
      #expect(try await server.request("DELETE", "/v1/workers/bo").status == 200)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/workers/bo"), 404)
      ServiceCheck.error(try await server.request("DELETE", "/v1/workers/bo"), 404)
      // `local` is the rig's own receiver: it always exists.
      let local = try await server.request("DELETE", "/v1/workers/local")
      #expect([409, 422].contains(local.status), "\(local.text)")
      #expect(try await Self.workerIDs(server) == ["local"])
    }
  }

  @Test func hostileWorkerIDsAreRefusedOnOneLineAndNFDNamesTheNFCWorker() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let long = String(repeating: "w", count: 10_240)
      for id in ["a%01b", "%20%20", "a%0Ab", "a%7Fb", "%C2%85", long] {
        for method in ["PUT", "GET", "DELETE"] {
          let response = try await Self.json(server, method, "/v1/workers/\(id)", "{}")
          let message = ServiceCheck.error(response, 422)
          #expect(message.count < 400, "\(method) \(id.prefix(20)): \(message.prefix(100))")
        }
      }
      // `%00` in a path is kept as those three characters (the server's rule: a NUL would
      // cut the id short in C), so it names the worker "a%00b", never "a".
      let nul = try await Self.json(server, "PUT", "/v1/workers/a%00b", "{}")
      #expect((nul.json?["worker"] as? [String: Any])?["id"] as? String == "a%00b")
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/workers/a"), 404)
      #expect(try await server.request("DELETE", "/v1/workers/a%00b").status == 200)
      // An accept naming such a worker, and a body of the wrong type, change nothing.
      for body in [
        #"{"worker_id":"a\u0000b"}"#, #"{"worker_id":"\#(long)"}"#, #"{"worker_id":5}"#,
        #"{"worker_id":["bo"]}"#, #"{"worker":"bo"}"#,
      ] {
        ServiceCheck.error(
          try await Self.json(server, "POST", "/v1/missions/sig-101/accept", body), 422)
      }
      for body in ["not json", "[]", #""bo""#, #"{"worker_id":"bo""#] {
        ServiceCheck.error(
          try await Self.json(server, "POST", "/v1/missions/sig-101/accept", body), 400)
      }
      let unknown = try await Self.json(
        server, "POST", "/v1/missions/sig-101/accept", #"{"worker_id":"nobody"}"#)
      #expect(ServiceCheck.error(unknown, 422).contains("nobody"))
      let mission = try await ServiceCheck.get(server, "/v1/missions/sig-101")
      #expect((mission.json?["mission"] as? [String: Any])?["state"] as? String == "open")
      #expect(try await Self.workerIDs(server) == ["local"])

      // "café" sent decomposed (NFD) is the worker "café" (NFC): one worker, found either way.
      #expect(try await Self.json(server, "PUT", "/v1/workers/cafe%CC%81", "{}").status == 201)
      #expect(try await ServiceCheck.get(server, "/v1/workers/caf%C3%A9").status == 200)
      #expect(try await Self.json(server, "PUT", "/v1/workers/caf%C3%A9", "{}").status == 200)
      #expect(try await Self.workerIDs(server) == ["café", "local"])
      let accepted = try await Self.json(
        server, "POST", "/v1/missions/sig-101/accept", #"{"worker_id":"cafe\u0301"}"#)
      #expect(accepted.status == 200, "\(accepted.text)")
      let event = try #require(accepted.json?["event"] as? [String: Any])
      #expect(event["worker_id"] as? String == "café")
    }
  }

  @Test func hostileWorkerBodiesAreRefusedAndStoreNothing() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let huge = String(repeating: "n", count: 4 << 20)
      let cases: [(String, Int)] = [
        ("not json", 400), ("[]", 400), ("5", 400), (#"{"name":"a""#, 400),
        (#"{"name":5}"#, 422), (#"{"name":"a","name":"b"}"#, 422), (#"{"nme":"x"}"#, 422),
        (#"{"name":"a\u0000b"}"#, 422), (#"{"devices":{}}"#, 422), (#"{"devices":[5]}"#, 422),
        (#"{"devices":[{"protocol":"pigeon","device_id":"x"}]}"#, 422),
        (#"{"devices":[{"protocol":"owntracks"}]}"#, 422),
        (#"{"devices":[{"protocol":"owntracks","device_id":7}]}"#, 422),
        (#"{"devices":[{"protocol":"owntracks","device_id":"a\u0001"}]}"#, 422),
        (#"{"devices":[{"protocol":"owntracks","device_id":"x","secret":[]}]}"#, 422),
        (#"{"devices":[{"protocol":"owntracks","device_id":"x","pin":1}]}"#, 422),
        (#"{"id":"someone-else"}"#, 422),
        (#"{"name":"\#(huge)","name":1}"#, 422),
      ]
      for (body, status) in cases {
        let response = try await Self.json(server, "PUT", "/v1/workers/bo", body)
        let message = ServiceCheck.error(response, status)
        #expect(message.count < 600, "\(body.prefix(40)): \(message.prefix(100))")
      }
      let typed = try await server.send("PUT", "/v1/workers/bo", contentType: "text/csv", "id\n")
      ServiceCheck.error(typed, 415)
      #expect(try await Self.workerIDs(server) == ["local"])
    }
  }

  @Test func oneTrackedMissionPerWorkerAndAnotherWorkersStartSucceeds() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      #expect(try await Self.json(server, "PUT", "/v1/workers/bo", "{}").status == 201)
      for id in ["sig-101", "sig-102"] {
        let accepted = try await Self.json(
          server, "POST", "/v1/missions/\(id)/accept", #"{"worker_id":"bo"}"#)
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect((accepted.json?["event"] as? [String: Any])?["worker_id"] as? String == "bo")
      }
      let shown = try await ServiceCheck.get(server, "/v1/missions/sig-101")
      #expect((shown.json?["mission"] as? [String: Any])?["worker_id"] as? String == "bo")
      #expect(try await server.request("POST", "/v1/missions/sig-101/start").status == 200)
      // A second start for bo: 409 naming the worker and the mission it tracks.
      let second = try await server.request("POST", "/v1/missions/sig-102/start")
      let message = ServiceCheck.error(second, 409)
      #expect(message.contains("bo") && message.contains("sig-101"), "\(message)")
      // Another worker (local, no body) starts beside it.
      #expect(try await server.request("POST", "/v1/missions/sig-103/accept").status == 200)
      let other = try await server.request("POST", "/v1/missions/sig-103/start")
      #expect(other.status == 200, "\(other.text)")
      let list = try await ServiceCheck.get(server, "/v1/workers")
      let tracked = ((list.json?["workers"] as? [[String: Any]]) ?? []).map {
        "\($0["id"] ?? "")=\($0["tracked_mission"] ?? "")"
      }
      #expect(tracked == ["bo=sig-101", "local=sig-103"])
      let metrics = try await ServiceCheck.get(server, "/metrics").text
      #expect(metrics.contains("\nmissiontrack_workers_tracked 2\n"), "\(metrics)")
      #expect(metrics.contains(#"missiontrack_events_total{type="mission_nearby"} 0"#))

      // Deleting a worker with a tracked mission: 409, and it stays.
      let busy = try await server.request("DELETE", "/v1/workers/bo")
      #expect(ServiceCheck.error(busy, 409).contains("sig-101"))
      #expect(try await Self.workerIDs(server) == ["bo", "local"])
      #expect(try await server.request("POST", "/v1/missions/sig-101/cancel").status == 200)
      #expect(try await server.request("DELETE", "/v1/workers/bo").status == 200)
    }
  }

  @Test func aPutRacingAStartNeverReplacesATrackedMission() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      #expect(try await Self.json(server, "PUT", "/v1/workers/bo", "{}").status == 201)
      for round in 0..<20 {
        let id = "race-\(round)"
        #expect(
          try await Self.json(server, "PUT", "/v1/missions/\(id)", #"{"lat":1,"lon":2}"#)
            .status == 201)
        #expect(
          try await Self.json(server, "POST", "/v1/missions/\(id)/accept", #"{"worker_id":"bo"}"#)
            .status == 200)
        let answers = Mutex<[String: RawHTTP.Response]>([:])
        await withCheckedContinuation { done in
          let group = DispatchGroup()
          let requests: [(String, String, String)] = [
            ("put", "PUT", #"{"lat":1.5,"lon":2,"state":"accepted"}"#), ("start", "POST", ""),
          ]
          for (name, method, body) in requests {
            group.enter()
            Thread {
              let path = "/v1/missions/\(id)" + (name == "start" ? "/start" : "")
              let answer = server.requestOnThisThread(
                method, path, headers: ["Content-Type": "application/json"],
                body: Array(body.utf8))
              answers.withLock { $0[name] = answer }
              group.leave()
            }.start()
          }
          group.notify(queue: .global()) { done.resume() }
        }
        let (put, start) = answers.withLock { ($0["put"], $0["start"]) }
        #expect(start?.status == 200, "start: \(start?.text ?? "")")
        #expect([200, 409].contains(put?.status ?? 0), "put: \(put?.text ?? "")")
        // What the engine tracks is what the store holds: a PUT that won replaced the
        // mission before the start; one that lost was refused whole.
        let stored = try await ServiceCheck.get(server, "/v1/missions/\(id)")
        let lat = (stored.json?["mission"] as? [String: Any])?["lat"] as? Double
        #expect(lat == (put?.status == 200 ? 1.5 : 1))
        let worker = try await ServiceCheck.get(server, "/v1/workers/bo")
        let tracked = (worker.json?["worker"] as? [String: Any])?["mission"] as? [String: Any]
        #expect(tracked?["id"] as? String == id)
        #expect(tracked?["lat"] as? Double == lat)
        #expect(try await server.request("POST", "/v1/missions/\(id)/cancel").status == 200)
      }
    }
  }
}
