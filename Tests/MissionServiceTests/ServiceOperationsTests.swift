import Foundation
import ServiceTestSupport
import Testing

@testable import MissionService

extension ServeSuite {
  /// The service as a long-running process: metrics and status follow tracking, the replay
  /// source restarts for each mission, one tracker per database, a clean and quick SIGTERM,
  /// and a client too slow for the event stream is dropped without slowing tracking. Metrics,
  /// status and the replay's restart are answered in-process (`InProcessService`); the rest
  /// needs the process (signals, sockets, systemd, the CLI's housekeeping).
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceOperationsTests {
    private func post(_ server: ServeProcess, _ path: String) throws -> RawHTTP.Response {
      try RawHTTP.request(port: server.port, "POST", path)
    }

    private func ended(_ client: SSEClient, mission: String, timeout: Double = 60) async -> Bool {
      await client.wait(timeout: timeout) { events in
        events.contains {
          $0.type == "source" && $0.data.contains(#""status":"ended""#)
            && $0.data.contains(#""mission_id":"\#(mission)""#)
        }
      }
    }

    /// Whether the stored events of `mission` end its source (the replay read to its end)
    /// within `timeout` seconds.
    private func ended(_ server: InProcessService, mission: String, timeout: Double = 60)
      async throws
      -> Bool
    {
      let deadline = Date().addingTimeInterval(timeout)
      while Date() < deadline {
        let events = try await server.request("GET", "/v1/missions/\(mission)/events").text
        if events.contains(#""status":"ended""#) { return true }
        try await Task.sleep(for: .milliseconds(200))
      }
      return false
    }

    /// The samples of a Prometheus text exposition, checked line by line.
    private func samples(_ text: String) -> [String: Double] {
      var result: [String: Double] = [:]
      for line in text.split(separator: "\n") {
        if line.hasPrefix("# HELP missiontrack_") || line.hasPrefix("# TYPE missiontrack_") {
          continue
        }
        let parts = line.split(separator: " ")
        guard parts.count == 2, parts[0].hasPrefix("missiontrack_"), let value = Double(parts[1])
        else {
          Issue.record("not a Prometheus sample line: \(line)")
          continue
        }
        result[String(parts[0])] = value
      }
      return result
    }

    @Test func metricsAndStatusFollowAReplayedMission() async throws {
      let sandbox = try ServiceSandbox()
      let server = try await InProcessService(sandbox, replay: ServiceSandbox.walkGPX)
      // A subscriber of the live events, held open to the end (`sse_clients`).
      let events = try server.service.hub.subscribe(after: 0, missionID: nil)
      #expect(try await server.request("POST", "/v1/missions/sig-101/accept").status == 200)
      #expect(try await server.request("POST", "/v1/missions/sig-101/start").status == 200)
      #expect(try await ended(server, mission: "sig-101"))
      let stored = try await server.request("GET", "/v1/missions/sig-101/events")
      let lines = stored.text.split(separator: "\n")
      let fixes = lines.filter { $0.contains(#""type":"fix""#) }.count
      #expect(fixes > 50)

      let metrics = try await server.request("GET", "/metrics")
      #expect(metrics.status == 200)
      #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
      let values = samples(metrics.text)
      #expect(values[#"missiontrack_events_total{type="fix"}"#] == Double(fixes))
      #expect(values["missiontrack_fixes_delivered_total"] == Double(fixes))
      #expect(values[#"missiontrack_events_total{type="enter"}"#] ?? 0 >= 1)
      #expect(values[#"missiontrack_http_requests_total{status="200"}"#] ?? 0 >= 3)
      #expect(values["missiontrack_sse_clients"] == 1)
      #expect(values.keys.contains(#"missiontrack_fixes_rejected_total{reason="outlier"}"#))

      let status = try await server.request("GET", "/v1/status")
      let source = status.json?["source"] as? [String: Any]
      #expect(source?["kind"] as? String == "replay")
      let lastFix = lines.last { $0.contains(#""type":"fix""#) }
      let lastTime =
        try #require(
          (try? JSONSerialization.jsonObject(with: Data((lastFix ?? "").utf8))) as? [String: Any])[
          "time"]
        as? String
      #expect(source?["last_fix_time"] as? String == lastTime)
      #expect((status.json?["missions"] as? [String: Int])?["arrived"] == 1)
      events.close()
      await server.stop()
    }

    /// A port already served is refused, with one line, also to a second `serve` on another
    /// database: libmicrohttpd would otherwise share it (SO_REUSEPORT) and split the clients
    /// between the two.
    @Test func aSecondServeOnTheSamePortIsRefused() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      let other = try ServiceSandbox()
      let second = try ServeProcess.run(
        ["serve", "--db", other.databasePath, "--listen", "127.0.0.1:\(server.port)"],
        in: other.directory, timeout: 20)
      #expect(second.status == 1)
      #expect(second.err.contains("cannot listen on 127.0.0.1:\(server.port)"))
      #expect(second.err.split(separator: "\n").count == 1)
      #expect(try RawHTTP.request(port: server.port, "GET", "/healthz").status == 200)
    }

    /// A quick sequential client keeps its server thread polling between requests instead
    /// of sleeping (`IdlePoll`, counted in `/metrics`); a slow one costs no polling at all.
    @Test func aQuickSequentialClientIsPolledForAndASlowOneIsNot() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      func polls() throws -> (caught: Double, missed: Double, preempted: Double) {
        let values = samples(try RawHTTP.request(port: server.port, "GET", "/metrics").text)
        func count(_ outcome: String) -> Double {
          values[#"missiontrack_http_idle_polls_total{outcome="\#(outcome)"}"#] ?? -1
        }
        return (count("caught"), count("missed"), count("preempted"))
      }
      // Slow: one kept-alive connection, a request every 5 ms. It is closed before wrk
      // starts, which otherwise might share its server thread (then no thread is alone).
      do {
        let connection = try RawHTTP(port: server.port)
        for _ in 0..<20 {
          connection.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
          #expect(connection.readResponse(within: 10)?.status == 200)
          usleep(5_000)
        }
      }
      let slow = try polls()
      #expect(
        slow.caught == 0 && slow.missed == 0 && slow.preempted == 0,
        "a slow client made threads poll: \(slow)")

      // Quick: wrk on one connection, each request sent as the last answer arrives.
      let wrk = try ServeProcess.run(
        ["wrk", "-c", "1", "-t", "1", "-d", "1s", "\(server.url)/healthz"],
        in: sandbox.directory, executable: "/usr/bin/env", timeout: 30)
      guard wrk.status == 0,
        let line = wrk.out.split(separator: "\n").first(where: {
          $0.contains("requests in")
        }), let requests = Double(line.split(separator: " ").first ?? "")
      else {
        Issue.record("wrk did not run (Tools/setup --tests installs it): \(wrk.err)")
        return
      }
      let quick = try polls()
      // The real server's threads poll their own epoll descriptors. How many of the requests
      // come within the window depends on the machine's load, and on a busy machine a poll
      // loses its core and pauses polling (IdlePollTests checks the rules; Tools/bench-serve
      // the effect), so one poll that caught a request or was preempted is enough here.
      #expect(quick.caught + quick.preempted >= 1, "\(quick) over \(requests) requests")
    }

    /// A fleet holds a lease file per phone-fed worker: `serve` started with a low soft
    /// descriptor limit raises it to the hard one.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/prlimit")))
    func serveRaisesItsSoftDescriptorLimitToTheHardOne() throws {
      let sandbox = try ServiceSandbox()
      var limit = rlimit()
      getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
      try #require(limit.rlim_max > 256)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
      process.arguments = [
        "--nofile=256:\(limit.rlim_max)", "--", ServeProcess.executable ?? "", "serve",
        "--listen", "127.0.0.1:0", "--db", sandbox.databasePath,
      ]
      let errors = sandbox.directory.appendingPathComponent("limit.err")
      _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
      process.standardError = try FileHandle(forWritingTo: errors)
      process.standardOutput = FileHandle.nullDevice
      try process.runWithDefaultSignalMask()
      OrphanGuard.watch(process)
      defer {
        process.terminate()
        process.waitUntilExit()
      }
      let deadline = Date().addingTimeInterval(20)
      while Date() < deadline, process.isRunning,
        !((try? String(contentsOf: errors, encoding: .utf8)) ?? "").contains("serving on")
      {
        usleep(20_000)
      }
      let limits = try String(
        contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8)
      let line = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") } ?? ""
      let values = line.split(separator: " ").compactMap { UInt64($0) }
      #expect(values == [UInt64(limit.rlim_max), UInt64(limit.rlim_max)], "\(line)")
    }

    @Test func theReplayStartsAgainForEachMissionAndOneTrackerOnly() async throws {
      let sandbox = try ServiceSandbox()
      let server = try await InProcessService(sandbox, replay: ServiceSandbox.walkGPX)
      // A second tracker on the same database is refused, naming the holder.
      let second = try ServeProcess.run(
        ["serve", "--db", sandbox.databasePath, "--listen", "127.0.0.1:0"], in: sandbox.directory)
      #expect(second.status == 1)
      #expect(second.err.contains("missiontrack serve"))

      for mission in ["sig-101", "sig-102"] {
        for action in ["accept", "start"] {
          #expect(
            try await server.request("POST", "/v1/missions/\(mission)/\(action)").status == 200)
        }
        #expect(try await ended(server, mission: mission))
        #expect(try await server.request("POST", "/v1/missions/\(mission)/cancel").status == 200)
        let show = try await server.request("GET", "/v1/missions/\(mission)")
        // The whole walk was read again for the second mission: the same number of fixes.
        #expect(show.json?["track_fixes"] as? Int ?? 0 > 50)
      }
      let first = try await server.request("GET", "/v1/missions/sig-101")
      let again = try await server.request("GET", "/v1/missions/sig-102")
      #expect(first.json?["track_fixes"] as? Int == again.json?["track_fixes"] as? Int)
      await server.stop()
    }

    @Test func sigtermStopsWithinTwoSecondsWhileTrackingAndStreaming() async throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve(["--replay", ServiceSandbox.walkGPX, "--speed", "2"])
      let events = try SSEClient(port: server.port)
      #expect(try post(server, "/v1/missions/sig-101/accept").status == 200)
      #expect(try post(server, "/v1/missions/sig-101/start").status == 200)
      #expect(await events.wait(timeout: 60) { $0.contains { $0.type == "fix" } })
      let stopped = server.stop()
      #expect(stopped.status == 0)
      #expect(stopped.seconds < 2)
      #expect(await events.wait(timeout: 60) { _ in events.isEnded })
      // The stop is recorded; the mission stays active, to be resumed by the next start.
      let export = try ServeProcess.run(
        ["export", "sig-101", "--format", "jsonl", "--db", sandbox.databasePath],
        in: sandbox.directory)
      #expect(export.out.contains(#""status":"ended","detail":"stopped by SIGTERM""#))
      let show = try ServeProcess.run(
        ["missions", "show", "sig-101", "--json", "--db", sandbox.databasePath],
        in: sandbox.directory)
      #expect(show.out.contains(#""state":"active""#))
    }

    @Test func aClientThatStopsReadingIsDroppedAndTrackingDoesNotWait() async throws {
      let sandbox = try ServiceSandbox(demo: false)
      let trace = sandbox.path("long.gpx")
      let generator = try ServeProcess.run(
        [
          "python3",
          ServeProcess.packageRoot.appendingPathComponent("Tools/gen-gpx").path, "--points",
          "100000", "--out", trace,
        ], in: sandbox.directory, executable: "/usr/bin/env")
      #expect(generator.status == 0, "\(generator.err)")
      let missions = sandbox.path("m.csv")
      try "id,lat,lon,title\nlong,50.5713376,-2.4566172,start\n".write(
        toFile: missions, atomically: true, encoding: .utf8)
      _ = try ServeProcess.run(
        ["missions", "import", missions, "--db", sandbox.databasePath], in: sandbox.directory)
      let server = try sandbox.serve(["--replay", trace])
      defer { server.stop() }
      // One client asks for the stream and never reads; another reads everything.
      let stalled = try RawHTTP(port: server.port)
      var size: Int32 = 4096
      setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
      stalled.send("GET /v1/events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
      let reader = try SSEClient(port: server.port, path: "/v1/events?after=0")
      #expect(try post(server, "/v1/missions/long/accept").status == 200)
      #expect(try post(server, "/v1/missions/long/start").status == 200)
      #expect(await ended(reader, mission: "long", timeout: 120))
      // Tens of thousands of events: more than the default 10 s on loaded cores.
      let stored = try RawHTTP.request(
        port: server.port, "GET", "/v1/missions/long/events", timeout: 120)
      let count = stored.text.split(separator: "\n").count
      #expect(reader.events.count == count, "the reading client got every event")
      #expect(count > 30_000)
      var dropped = 0.0
      let deadline = Date().addingTimeInterval(60)
      while Date() < deadline && dropped < 1 {
        let metrics = try RawHTTP.request(port: server.port, "GET", "/metrics")
        dropped = samples(metrics.text)["missiontrack_sse_clients_dropped_total"] ?? 0
        usleep(200_000)
      }
      #expect(dropped == 1, "the client that stopped reading was dropped")
    }

    @Test func healthFailsWhileTheSourceIsDownDuringTrackingAndDeadlinesExpire() async throws {
      let sandbox = try ServiceSandbox()
      // Nothing listens on this port: the gpsd source stays disconnected.
      let listener = try RawHTTP.freeLoopbackPort()
      let server = try sandbox.serve([
        "--gpsd", "127.0.0.1:\(listener)", "--source-down-limit", "1",
      ])
      defer { server.stop() }
      #expect(try RawHTTP.request(port: server.port, "GET", "/healthz").status == 200)
      #expect(try post(server, "/v1/missions/sig-101/accept").status == 200)
      #expect(try post(server, "/v1/missions/sig-101/start").status == 200)
      var health = try RawHTTP.request(port: server.port, "GET", "/healthz")
      let deadline = Date().addingTimeInterval(60)
      while health.status == 200 && Date() < deadline {
        usleep(200_000)
        health = try RawHTTP.request(port: server.port, "GET", "/healthz")
      }
      #expect(health.status == 503)
      #expect(health.text.contains("while tracking"))
      // Not tracking any more: healthy again.
      #expect(try post(server, "/v1/missions/sig-101/cancel").status == 200)
      #expect(try RawHTTP.request(port: server.port, "GET", "/healthz").status == 200)

      // A deadline that passes while the service runs expires the mission within a second.
      let events = try SSEClient(port: server.port)
      // Subscribed before the deadline can pass, or the live stream would start after it.
      #expect(await events.waitUntilSubscribed())
      let soon = Date().addingTimeInterval(1.5)
      let formatter = ISO8601DateFormatter()
      let body =
        #"{"lat":59.62,"lon":17.73,"title":"soon","deadline":"\#(formatter.string(from: soon))"}"#
      let put = try RawHTTP.request(
        port: server.port, "PUT", "/v1/missions/soon",
        headers: ["Content-Type": "application/json"],
        text: body)
      #expect(put.status == 201, "\(put.text)")
      func isExpiry(_ event: SSEClient.Event) -> Bool {
        event.data.contains(#""mission_id":"soon""#) && event.data.contains(#""to":"expired""#)
      }
      #expect(await events.wait(timeout: 60) { $0.contains(where: isExpiry) })
      // Within a second by the service's own clock (the event's time): how late a loaded
      // run delivers the event to this test is not the expiry being late.
      let due = try #require(formatter.date(from: formatter.string(from: soon)))
      let expiry = events.events.first(where: isExpiry).flatMap {
        try? JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Any]
      }
      let precise = ISO8601DateFormatter()
      precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
      let time = expiry?["time"] as? String
      let expired = try #require(
        time.flatMap { precise.date(from: $0) }, "\(String(describing: time))")
      #expect(
        expired.timeIntervalSince(due) < 1,
        "expired \(expired.timeIntervalSince(due)) s late")
      let show = try RawHTTP.request(port: server.port, "GET", "/v1/missions/soon")
      #expect((show.json?["mission"] as? [String: Any])?["state"] as? String == "expired")
    }
  }
}
