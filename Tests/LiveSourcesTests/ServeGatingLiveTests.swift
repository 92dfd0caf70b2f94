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
    #expect(await poll(for: 5) { GPSDHarness.clients(ofGPSDOn: port) == 1 })
    let arrived = await poll(for: 60) {
      let show = try? RawHTTP.request(port: server.port, "GET", "/v1/missions/sig-101")
      return (show?.json?["mission"] as? [String: Any])?["state"] as? String == "arrived"
    }
    #expect(arrived)

    // Submitted by the API: gpsd sees the connection close within 1 s.
    let submitted = Date()
    #expect(
      try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/submit").status == 200)
    #expect(await poll(for: 1) { GPSDHarness.clients(ofGPSDOn: port) == 0 })
    #expect(Date().timeIntervalSince(submitted) < 1.5)

    // Started again by a CLI command on the same database, cancelled by another one.
    _ = try ServeProcess.run(["missions", "accept", "sig-102", "--db", db], in: directory)
    let started = try ServeProcess.run(["missions", "start", "sig-102", "--db", db], in: directory)
    #expect(started.status == 0, "\(started.err)")
    #expect(await poll(for: 5) { GPSDHarness.clients(ofGPSDOn: port) == 1 })
    let cancelled = try ServeProcess.run(
      ["missions", "cancel", "sig-102", "--db", db], in: directory)
    #expect(cancelled.status == 0, "\(cancelled.err)")
    let cancelTime = Date()
    #expect(await poll(for: 1.5) { GPSDHarness.clients(ofGPSDOn: port) == 0 })
    #expect(Date().timeIntervalSince(cancelTime) < 1.5)
    let status = try RawHTTP.request(port: server.port, "GET", "/v1/status")
    #expect(status.json?["active_mission"] is NSNull)
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
  private func holds(_ pid: Int32, _ path: String) -> Bool {
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
    #expect(!holds(pid, pair.readerPath))
    for action in ["accept", "start"] {
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/\(action)").status
          == 200)
    }
    #expect(await poll(for: 5) { holds(pid, pair.readerPath) })
    let submitted = Date()
    #expect(
      try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/cancel").status == 200)
    // At once, not at a poll of the database: well under a second on an idle machine; the
    // bound leaves room for a test run that loads both cores.
    #expect(await poll(for: 2) { !holds(pid, pair.readerPath) })
    #expect(Date().timeIntervalSince(submitted) < 3)
    #expect(server.stop().status == 0)
  }
}
