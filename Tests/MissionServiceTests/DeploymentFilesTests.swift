import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// The deployment files in Tools/ do what their comments say: the systemd units pass
  /// `systemd-analyze verify`, and the nginx site (`nginx-missiontrack.conf`), run by a real
  /// nginx in front of a real `serve`, passes every kind of request through, streams events
  /// unbuffered and skips a node that is down.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct DeploymentFilesTests {
    static let token = "fleet-token-0123456789"

    /// Each unit, with `ExecStart` pointed at the built binary (verify checks it exists), is
    /// accepted without a single warning (an unknown key is only a warning there).
    @Test(
      .enabled(
        if: FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-analyze"),
        "needs systemd-analyze"),
      arguments: ["missiontrack.service", "missiontrack-node@.service"])
    func systemdUnitsVerifyCleanly(unit: String) throws {
      let sandbox = try ServiceSandbox(demo: false)
      let executable = try #require(ServeProcess.executable)
      let shipped = try String(
        contentsOfFile: ServeProcess.packageRoot.appendingPathComponent("Tools/\(unit)").path,
        encoding: .utf8)
      #expect(shipped.contains("ExecStart=/usr/local/bin/missiontrack serve "))
      // A template is verified as one of its instances.
      let name = unit.replacingOccurrences(of: "@.", with: "@8081.")
      let path = sandbox.path(name)
      try shipped.replacingOccurrences(of: "/usr/local/bin/missiontrack", with: executable)
        .write(toFile: path, atomically: true, encoding: .utf8)
      let verify = try ServeProcess.run(
        ["verify", path], in: sandbox.directory, executable: "/usr/bin/systemd-analyze",
        timeout: 120)
      #expect(verify.status == 0, "\(verify.err)")
      // Lines about other units on this machine are not this file's.
      let own = verify.err.split(separator: "\n").filter { $0.contains(name) }
      #expect(own.isEmpty, "\(own)")
    }

    @Test(.enabled(if: NginxProxy.isAvailable, "needs nginx (Debian nginx-light)"))
    func nginxPassesRequestsStreamsEventsAndSkipsANodeThatIsDown() async throws {
      let sandbox = try ServiceSandbox()
      let tokenFile = sandbox.path("token")
      try "\(Self.token)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
      let secret = sandbox.path("secret")
      try "s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
      let added = try sandbox.cli([
        "workers", "add", "phone", "--device", "osmand:123456", "--secret-file", secret,
      ])
      #expect(added.status == 0, "\(added.err)")
      let node = try sandbox.serve(["--token-file", tokenFile])
      defer { node.stop() }
      // The shipped file's second node: a port nothing listens on.
      let down = try RawHTTP.freeLoopbackPort()
      let proxy = try NginxProxy(nodes: [node.port, down], in: sandbox.directory)
      let auth = ["Authorization": "Bearer \(Self.token)", "Host": "fleet.example"]

      // Every request answered by the node that is up, whichever node nginx tries first.
      for _ in 0..<8 {
        let missions = try RawHTTP.request(port: proxy.port, "GET", "/v1/missions", headers: auth)
        #expect(missions.status == 200, "\(missions.text)")
        #expect(missions.text.contains("sig-101"))
      }
      #expect(try RawHTTP.request(port: proxy.port, "GET", "/healthz").status == 200)
      #expect(try RawHTTP.request(port: proxy.port, "GET", "/v1/missions").status == 401)

      // An event stream through the proxy gets each event as it happens.
      let stream = try SSEClient(port: proxy.port, token: Self.token)
      defer { stream.close() }
      #expect(await stream.waitUntilSubscribed())
      let accepted = try RawHTTP.request(
        port: proxy.port, "POST", "/v1/missions/sig-101/accept", headers: auth,
        text: #"{"worker_id":"phone"}"#)
      #expect(accepted.status == 200, "\(accepted.text)")
      #expect(
        await stream.wait(timeout: 60) { events in
          events.contains { $0.type == "state" && $0.data.contains("\"accepted\"") }
        }, "\(stream.head) \(stream.events)")
      #expect(stream.head.contains("200"), "\(stream.head)")

      // A phone's position through the proxy (no bearer token: its device secret).
      let started = try RawHTTP.request(
        port: proxy.port, "POST", "/v1/missions/sig-101/start", headers: auth)
      #expect(started.status == 200, "\(started.text)")
      // Three positions 20 m apart (the engine holds the newest back until the next one),
      // dated after the start (a fix taken before it is outside the mission).
      let now = Int(Date().timeIntervalSince1970)
      for step in 0..<3 {
        let position = try RawHTTP.request(
          port: proxy.port, "GET",
          "/v1/ingest/osmand?id=123456&secret=s3cret&timestamp=\(now + 1 + step)"
            + "&lat=\(59.6 + Double(step) * 0.00018)&lon=17.7")
        #expect(position.status == 200, "\(position.text)")
      }
      #expect(
        await stream.wait(timeout: 60) { events in events.contains { $0.type == "fix" } },
        "\(stream.events)")

      // Bodies up to serve's own limit pass (an import of 2 MiB of NULs: serve's own
      // 422); beyond it, the proxy refuses from the headers (413), as serve would.
      let large = try RawHTTP.request(
        port: proxy.port, "POST", "/v1/missions",
        headers: auth.merging(["Content-Type": "text/csv"]) { $1 },
        body: [UInt8](repeating: 0x00, count: 2 << 20), timeout: 60)
      #expect(large.status == 422, "\(large.status) \(large.text.prefix(200))")
      let big = try RawHTTP(port: proxy.port, timeout: 5)
      big.send(
        "POST /v1/missions HTTP/1.1\r\nHost: fleet.example\r\n"
          + "Authorization: Bearer \(Self.token)\r\nContent-Length: \(17 << 20)\r\n\r\n")
      let refused = RawHTTP.parse(big.readAvailable(waiting: 10))
      #expect(refused?.status == 413, "\(String(describing: refused))")
    }

    /// A phone's batch over 16 KiB through the shipped nginx site is not held back. nginx
    /// keeps a body above `client_body_buffer_size` (16 KiB by default) in a file and sends
    /// it after the headers, a second small segment that Nagle holds until the node
    /// acknowledges the first, which Linux delays by 40 ms: every such request waited 40 ms,
    /// and two nodes took 29,000 Overland positions/s where they take 55,000–68,000
    /// (docs/benchmarks.md). With the body in memory it goes out with the headers.
    @Test(.enabled(if: NginxProxy.isAvailable, "needs nginx (Debian nginx-light)"))
    func aLargeBatchThroughNginxIsNotHeldBackByTheProxy() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let node = try sandbox.serve()
      defer { node.stop() }
      let proxy = try NginxProxy(nodes: [node.port, node.port], in: sandbox.directory)
      // An Overland batch of no positions, padded to 48 KiB: the node reads all of it,
      // decodes it and answers at once.
      let body = #"{"locations":[]"# + String(repeating: " ", count: 48 << 10) + "}"
      var seconds: [Double] = []
      for _ in 0..<15 {
        let started = Date()
        let answer = try RawHTTP.request(
          port: proxy.port, "POST", "/v1/ingest/overland",
          headers: ["Content-Type": "application/json"], text: body)
        seconds.append(Date().timeIntervalSince(started))
        #expect(answer.status == 200, "\(answer.text)")
      }
      // Held back, each took at least 40 ms; on a loaded machine a few may still be slow.
      let median = seconds.sorted()[seconds.count / 2]
      #expect(median < 0.03, "median \(median) s: \(seconds)")
    }
  }
}
