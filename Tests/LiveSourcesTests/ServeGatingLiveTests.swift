import Foundation
import MissionStore
import ServiceTestSupport
import Testing

/// `missiontrack serve --gpsd` against a real gpsd: no connection while no mission is
/// active, one while a mission is tracked, none within 1 s after it is submitted (by the
/// API) or cancelled (by a CLI command on the same database), counted at gpsd's side.
@Suite(
  .serialized, .enabled(if: GPSDHarness.isAvailable, "gpsd and socat must be installed"),
  .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct ServeGatingLiveTests {
  @Test func serveHoldsAGPSDConnectionOnlyWhileAMissionIsTracked() async throws {
    let demo = try DemoDatabase(tag: "serve-gpsd")
    let (directory, db) = (demo.directory, demo.path)

    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = try harness.startGPSDWithTheDemoWalk()
    let server = try ServeProcess(
      ["--db", db, "--gpsd", "127.0.0.1:\(port)"], in: directory)
    defer { server.stop() }

    // Serving, no mission active: no connection to gpsd, for a while.
    try await Task.sleep(for: .milliseconds(1500))
    #expect(GPSDHarness.clients(ofGPSDOn: port) == 0)
    let idle = try RawHTTP.request(port: server.port, "GET", "/v1/status")
    #expect((idle.json?["source"] as? [String: Any])?["status"] as? String == "idle")

    // Started by the API: one connection, and the walk is tracked to arrival.
    for action in ["accept", "start"] {
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/\(action)").status
          == 200)
    }
    #expect(await poll(for: 60) { GPSDHarness.clients(ofGPSDOn: port) == 1 })
    let arrived = await poll(for: 120) {
      let show = try? RawHTTP.request(port: server.port, "GET", "/v1/missions/sig-101")
      return (show?.json?["mission"] as? [String: Any])?["state"] as? String == "arrived"
    }
    #expect(arrived)

    // Submitted by the API: gpsd sees the connection close within 1 s of the answer. The
    // moment is taken by a thread of its own, and the bound counts from the answer: a test
    // task resumed late, or a request queued behind a loaded server, is not the service
    // being slow to let go.
    let submitClose = FirstSeen.moment { GPSDHarness.clients(ofGPSDOn: port) == 0 }
    #expect(
      try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/submit").status == 200)
    let submitted = Date()
    let closed = try #require(await submitClose.value, "gpsd's client did not close")
    #expect(closed.timeIntervalSince(submitted) < 1.5, "\(closed.timeIntervalSince(submitted)) s")

    // Started again by a CLI command on the same database, cancelled by another one.
    _ = try ServeProcess.run(["missions", "accept", "sig-102", "--db", db], in: directory)
    let started = try ServeProcess.run(["missions", "start", "sig-102", "--db", db], in: directory)
    #expect(started.status == 0, "\(started.err)")
    #expect(await poll(for: 60) { GPSDHarness.clients(ofGPSDOn: port) == 1 })
    // Seen by serve within 1 s of the command's end (it reads the database), measured as
    // above.
    let cancelClose = FirstSeen.moment { GPSDHarness.clients(ofGPSDOn: port) == 0 }
    let cancelled = try ServeProcess.run(
      ["missions", "cancel", "sig-102", "--db", db], in: directory)
    #expect(cancelled.status == 0, "\(cancelled.err)")
    let cancelTime = Date()
    let closedAfterCancel = try #require(await cancelClose.value, "gpsd's client did not close")
    #expect(
      closedAfterCancel.timeIntervalSince(cancelTime) < 1.5,
      "\(closedAfterCancel.timeIntervalSince(cancelTime)) s")
    let status = try RawHTTP.request(port: server.port, "GET", "/v1/status")
    #expect(status.json?["active_mission"] is NSNull)
    #expect(server.stop().status == 0)
  }
}

/// Gating is per worker (DESIGN §7): `serve --gpsd` feeds worker `local`; starting and
/// stopping another worker's mission on the same service leaves local's gpsd connection
/// alone (gpsd counts one client throughout, and local's stream has no new `source` event).
@Suite(
  .serialized, .enabled(if: GPSDHarness.isAvailable, "gpsd and socat must be installed"),
  .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct ServeGatingPerWorkerLiveTests {
  @Test func anotherWorkersStartAndStopLeaveTheGPSDConnectionAlone() async throws {
    let demo = try DemoDatabase(tag: "serve-gpsd-workers")
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = try harness.startGPSDWithTheDemoWalk()
    let server = try ServeProcess(
      ["--db", demo.path, "--gpsd", "127.0.0.1:\(port)"], in: demo.directory)
    defer { server.stop() }
    func post(_ path: String, _ body: String = "") throws -> Int {
      try RawHTTP.request(
        port: server.port, "POST", path, headers: ["Content-Type": "application/json"],
        text: body
      ).status
    }
    #expect(
      try RawHTTP.request(
        port: server.port, "PUT", "/v1/workers/bo", headers: ["Content-Type": "application/json"],
        text: "{}"
      ).status == 201)
    #expect(try post("/v1/missions/sig-101/accept") == 200)
    #expect(try post("/v1/missions/sig-101/start") == 200)
    #expect(await poll(for: 60) { GPSDHarness.clients(ofGPSDOn: port) == 1 })
    // The connection's own events: a reopened connection would add a `connected` (and a
    // `disconnected` before it). Other source news (`no_fix`, `silent`, a `gap`) comes from
    // the recorded feed itself, whatever another worker does.
    func localSourceEvents() throws -> Int {
      let events = try RawHTTP.request(
        port: server.port, "GET", "/v1/missions/sig-101/events"
      ).text
      return events.split(separator: "\n").filter {
        $0.contains(#""type":"source""#)
          && ($0.contains(#""status":"connected""#) || $0.contains(#""status":"disconnected""#)
            || $0.contains(#""status":"reconnecting""#))
      }.count
    }
    // The baseline holds the connection's `connected`: counted before it was stored, it
    // would make the check below fail on a loaded machine.
    #expect(await poll(for: 60) { ((try? localSourceEvents()) ?? 0) >= 1 })
    let before = try localSourceEvents()

    // Worker bo's missions start and stop: local's connection is the one it was.
    for mission in ["sig-102", "sig-103"] {
      #expect(try post("/v1/missions/\(mission)/accept", #"{"worker_id":"bo"}"#) == 200)
      #expect(try post("/v1/missions/\(mission)/start") == 200)
      try await Task.sleep(for: .milliseconds(700))
      #expect(GPSDHarness.clients(ofGPSDOn: port) == 1)
      #expect(try post("/v1/missions/\(mission)/cancel") == 200)
      try await Task.sleep(for: .milliseconds(700))
      #expect(GPSDHarness.clients(ofGPSDOn: port) == 1)
      // The status describes local's source, which bo's cancel did not make idle.
      let status = try RawHTTP.request(port: server.port, "GET", "/v1/status")
      let source = status.json?["source"] as? [String: Any]
      #expect(source?["status"] as? String != "idle", "\(status.text)")
    }
    #expect(try localSourceEvents() == before)
    let status = try RawHTTP.request(port: server.port, "GET", "/v1/status")
    #expect(status.json?["active_mission"] as? String == "sig-101")
    let close = FirstSeen.moment { GPSDHarness.clients(ofGPSDOn: port) == 0 }
    #expect(try post("/v1/missions/sig-101/submit") == 200)
    let submitted = Date()
    let closed = try #require(await close.value, "gpsd's client did not close")
    #expect(closed.timeIntervalSince(submitted) < 1.5, "\(closed.timeIntervalSince(submitted)) s")
    #expect(server.stop().status == 0)
  }
}

/// `missiontrack serve --nmea DEVICE`: the device is open only while a mission is tracked,
/// checked in the server's own file descriptor table (`/proc/PID/fd`).
@Suite(
  .enabled(if: PseudoTerminalPair.isAvailable, "socat must be installed"),
  .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct ServeDeviceGatingTests {
  /// Whether process `pid` holds `path` open.
  private static func holds(_ pid: Int32, _ path: String) -> Bool {
    let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    let directory = "/proc/\(pid)/fd"
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    return entries.contains { entry in
      let target = try? FileManager.default.destinationOfSymbolicLink(
        atPath: "\(directory)/\(entry)")
      return target == resolved || target == path
    }
  }

  @Test func theDeviceIsOpenOnlyWhileTracking() async throws {
    let demo = try DemoDatabase(tag: "serve-nmea")
    let (directory, db) = (demo.directory, demo.path)
    let pair = try PseudoTerminalPair()
    defer { pair.stop() }
    let server = try ServeProcess(["--db", db, "--nmea", pair.readerPath], in: directory)
    defer { server.stop() }
    let pid = server.process.processIdentifier
    try await Task.sleep(for: .seconds(1))
    #expect(!Self.holds(pid, pair.readerPath))
    for action in ["accept", "start"] {
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/\(action)").status
          == 200)
    }
    #expect(await poll(for: 60) { Self.holds(pid, pair.readerPath) })
    let reader = pair.readerPath
    let release = FirstSeen.moment { !Self.holds(pid, reader) }
    #expect(
      try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/cancel").status == 200)
    let cancelled = Date()
    // At once, not at a poll of the database: well under a second on an idle machine; the
    // bound leaves room for a test run that loads both cores. Measured from the answer, at
    // the moment a thread of its own saw the device closed (see `FirstSeen`).
    let released = try #require(await release.value, "the device stayed open")
    #expect(released.timeIntervalSince(cancelled) < 3, "\(released.timeIntervalSince(cancelled)) s")
    #expect(server.stop().status == 0)
  }
}
