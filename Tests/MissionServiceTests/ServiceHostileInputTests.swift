import Foundation
import ServiceTestSupport
import Synchronization
import Testing

extension ServeSuite {
  /// What a hostile or broken client sends, over raw loopback sockets: the server refuses it
  /// with the one error shape (or libmicrohttpd closes the connection), never hangs, never
  /// changes anything, and keeps answering everybody else. Hostile bodies and query values,
  /// and racing writes, are `ServiceHostileInputInProcessTests`.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceHostileInputTests {
    static let healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

    @Test func garbageInsteadOfARequestLineNeverHangsTheServer() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let server = try sandbox.serve(["--idle-timeout", "2"])
      defer { server.stop() }
      let garbage: [[UInt8]] = [
        Array("hello\r\n\r\n".utf8),
        Array(0...255) + [13, 10, 13, 10],
        [0, 1, 2, 3, 13, 10, 13, 10],
        [0xFF, 0xFE, 0x00, 0x20, 0x2F, 13, 10, 13, 10],
        Array("GET\r\n\r\n".utf8),
        Array("GET /healthz\r\n\r\n".utf8),
        Array("GET /healthz HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n".utf8),
        Array("GET /healthz HTTP/1.1\r\nHost x no colon\r\n\r\n".utf8),
        Array(" / HTTP/1.1\r\n\r\n".utf8),
        Array(repeating: 0x41, count: 100_000),
        Array("\u{16}\u{03}\u{01}\u{02}\u{00}\u{01}\u{00}\u{01}\u{fc}\u{03}\u{03}".utf8),
      ]
      for bytes in garbage {
        let connection = try RawHTTP(port: server.port, timeout: 8)
        connection.send(bytes)
        let started = Date()
        let answer = connection.readToEnd()
        // Either an HTTP refusal or a closed connection, within the idle timeout and slack.
        #expect(Date().timeIntervalSince(started) < 7, "\(bytes.prefix(16)) held the connection")
        if !answer.isEmpty {
          let response = RawHTTP.parse(answer)
          #expect((400...599).contains(response?.status ?? 0), "\(bytes.prefix(16))")
        }
        #expect(ServiceCheck.healthy(server))
      }
    }

    /// Headers a browser may send (cookies of other pages on the same host): 16 KB is
    /// answered, twice the 8 KiB a line nginx takes by default.
    @Test func sixteenKilobytesOfHeadersAreAnswered() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let server = try sandbox.serve()
      defer { server.stop() }
      let connection = try RawHTTP(port: server.port)
      connection.send(
        "GET /v1/missions?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: other="
          + String(repeating: "c", count: 12_000) + "\r\nX-Other: "
          + String(repeating: "o", count: 4_000) + "\r\n\r\n")
      let answer = try #require(connection.readResponse(within: 10))
      #expect(answer.status == 200)
    }

    @Test func aOneMebibyteHeaderIsRefusedAndTheNextRequestAnswered() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let server = try sandbox.serve()
      defer { server.stop() }
      let connection = try RawHTTP(port: server.port)
      let head =
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: "
        + String(repeating: "a", count: 1 << 20)
      connection.send(head + "\r\n\r\n")
      let answer = connection.readToEnd()
      // libmicrohttpd refuses it itself (431, its own HTML body) or drops the connection.
      if let response = RawHTTP.parse(answer) {
        #expect(response.status == 431 || response.status == 413 || response.status == 400)
      }
      // Many headers, each small, add up the same way.
      let many = try RawHTTP(port: server.port)
      var lines = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"
      for index in 0..<20_000 { lines += "X-H\(index): value\r\n" }
      many.send(lines + "\r\n")
      if let response = RawHTTP.parse(many.readToEnd()) {
        #expect(response.status >= 400)
      }
      // So do many query items (libmicrohttpd keeps each in the connection's memory): past
      // about 500 it closes the connection or holds it unanswered (here until the client's
      // 10 s timeout); the service answers the next one.
      let items = try RawHTTP(port: server.port)
      let query = (0..<1_000).map { "x\($0)=1" }.joined(separator: "&")
      items.send("GET /v1/missions?\(query) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      if let response = RawHTTP.parse(items.readToEnd()) {
        #expect(response.status >= 400)
      }
      #expect(ServiceCheck.healthy(server))
    }

    @Test func aStalledHalfRequestIsClosedAfterTheIdleTimeoutWhileOthersAreServed() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let server = try sandbox.serve(["--idle-timeout", "2"])
      defer { server.stop() }
      let inHeaders = try RawHTTP(port: server.port, timeout: 10)
      inHeaders.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Half: ")
      let inBody = try RawHTTP(port: server.port, timeout: 10)
      inBody.send(
        "POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
          + "Content-Length: 100\r\n\r\nid,lat")
      let started = Date()
      // Meanwhile the server answers others at once.
      for _ in 0..<5 {
        let others = Date()
        #expect(ServiceCheck.healthy(server))
        #expect(Date().timeIntervalSince(others) < 1.5)
      }
      #expect(inHeaders.readToEnd().isEmpty)
      let closedHeaders = Date().timeIntervalSince(started)
      #expect(inBody.readToEnd().isEmpty)
      let closedBody = Date().timeIntervalSince(started)
      // Closed by the server (readToEnd ended before its own 10 s timeout), not earlier than
      // the idle timeout allows.
      #expect(closedHeaders > 1 && closedHeaders < 6, "closed after \(closedHeaders) s")
      #expect(closedBody > 1 && closedBody < 6, "closed after \(closedBody) s")
      #expect(
        ServiceCheck.ids(try ServiceCheck.get(server, "/v1/missions")) == [],
        "the half body imported nothing")
    }

    @Test func anAnnouncedBodyOver16MiBIsRefusedFromItsHeaders() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let server = try sandbox.serve()
      defer { server.stop() }
      // Lengths past Int.max (up to UInt64.max, which libmicrohttpd accepts) are as large.
      let lengths = ["\(16 << 20 + 1)", "9223372036854775808", "18446744073709551615"]
      for path in ["/v1/missions", "/v1/missions/big", "/v1/missions?replace=true"] {
        for length in lengths {
          let method = path == "/v1/missions/big" ? "PUT" : "POST"
          let connection = try RawHTTP(port: server.port, timeout: 5)
          // Only the headers: the 413 must come without a byte of the body.
          connection.send(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
              + "Content-Length: \(length)\r\n\r\n")
          let answer = connection.readAvailable(waiting: 3)
          guard let response = RawHTTP.parse(answer) else {
            Issue.record("no answer to \(method) \(path) of \(length) bytes from its headers")
            continue
          }
          ServiceCheck.error(response, 413)
        }
      }
      // Counted like every other answer.
      let metrics = try ServiceCheck.get(server, "/metrics").text
      #expect(metrics.contains("status=\"413\"} 9"), "\(metrics.prefix(3000))")
      // Exactly 16 MiB announced is not refused from the headers: the server waits for it.
      let atLimit = try RawHTTP(port: server.port, timeout: 5)
      atLimit.send(
        "POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
          + "Content-Length: \(16 << 20)\r\n\r\n")
      #expect(atLimit.readAvailable(waiting: 1).isEmpty)
      // A Content-Length that is no number is libmicrohttpd's to refuse.
      let nonsense = try RawHTTP(port: server.port, timeout: 5)
      nonsense.send(
        "POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
          + "Content-Length: 99999999999999999999999999\r\n\r\n")
      if let response = RawHTTP.parse(nonsense.readAvailable(waiting: 3)) {
        #expect(response.status >= 400)
      }
      #expect(ServiceCheck.healthy(server))
    }

    @Test func aRequestWithoutExactlyOneValidHostIsRefused() throws {
      let sandbox = try ServiceSandbox(demo: false)
      // With CORS on, a preflight (OPTIONS) is answered before the token check: not before
      // this one.
      let server = try sandbox.serve(["--cors-origin", "http://app.example"])
      defer { server.stop() }
      let close = "Connection: close\r\n\r\n"
      let upload = "Content-Type: text/csv\r\nContent-Length: 16\r\n\(close)id,lat,lon\nh,1,2\n"
      let refused: [(String, [UInt8])] = [
        ("no Host in HTTP/1.1", Array("GET /healthz HTTP/1.1\r\n\(close)".utf8)),
        ("no Host on an upload", Array("POST /v1/missions HTTP/1.1\r\n\(upload)".utf8)),
        (
          "two Host lines",
          Array("GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: 127.0.0.1\r\n\(close)".utf8)
        ),
        (
          "two Host lines in HTTP/1.0, the second another host",
          Array("GET /v1/status HTTP/1.0\r\nHost: 127.0.0.1\r\nhost: evil.example\r\n\r\n".utf8)
        ),
        (
          "two Host lines on an upload",
          Array("POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nHOST: x\r\n\(upload)".utf8)
        ),
        ("an empty Host", Array("GET /v1/status HTTP/1.1\r\nHost: \r\n\(close)".utf8)),
        (
          "a Host with a space",
          Array("GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1 evil.example\r\n\(close)".utf8)
        ),
        ("no Host in HTTP/1.2 (served as 1.1)", Array("GET /healthz HTTP/1.2\r\n\(close)".utf8)),
        (
          "a second Host with a space before its colon",
          Array(
            "GET /v1/status HTTP/1.1\r\nHost: 127.0.0.1\r\nHost : evil.example\r\n\(close)".utf8)
        ),
        (
          "the only Host with a space before its colon, in HTTP/1.0",
          Array("GET /v1/status HTTP/1.0\r\nHost : evil.example\r\n\r\n".utf8)
        ),
        ("a preflight without Host", Array("OPTIONS /v1/missions HTTP/1.1\r\n\(close)".utf8)),
        // Not a host and port (RFC 3986): a proxy may read another host out of them.
        (
          "a name after an IPv6 literal",
          Array("GET /v1/status HTTP/1.1\r\nHost: [::1]attacker.example\r\n\(close)".utf8)
        ),
        (
          "an unclosed IPv6 literal",
          Array("GET /v1/status HTTP/1.1\r\nHost: [::1\r\n\(close)".utf8)
        ),
        (
          "a port with letters",
          Array("GET /v1/status HTTP/1.1\r\nHost: [::1]:80evil\r\n\(close)".utf8)
        ),
        (
          "a name as the port",
          Array("GET /v1/status HTTP/1.1\r\nHost: localhost:evil.example\r\n\(close)".utf8)
        ),
        (
          "a preflight with two Host lines",
          Array("OPTIONS /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: x\r\n\(close)".utf8)
        ),
      ]
      for (what, bytes) in refused {
        let connection = try RawHTTP(port: server.port, timeout: 5)
        connection.send(bytes)
        let answer = connection.readToEnd()
        guard let response = RawHTTP.parse(answer) else {
          // libmicrohttpd may drop a request it finds malformed itself; ours must be 400.
          Issue.record("\(what): no answer")
          continue
        }
        let message = ServiceCheck.error(response, 400)
        #expect(message.contains("Host") || message.contains("colon"), "\(what): \(message)")
      }
      // HTTP/1.0 needs no Host; one Host line is fine in any case of its name.
      for bytes in [
        "GET /healthz HTTP/1.0\r\n\r\n", "GET /healthz HTTP/1.1\r\nhOsT: 127.0.0.1:1\r\n\(close)",
        "GET /healthz HTTP/1.1\r\nHost: [::1]:8080\r\n\(close)",
        "GET /v1/status HTTP/1.1\r\nHost: localhost:8947\r\n\(close)",
        "GET /v1/status HTTP/1.1\r\nHost: [::1]\r\n\(close)",
        "OPTIONS /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\n\(close)",
      ] {
        let connection = try RawHTTP(port: server.port, timeout: 5)
        connection.send(bytes)
        #expect([200, 204].contains(RawHTTP.parse(connection.readToEnd())?.status), "\(bytes)")
      }
      #expect(ServiceCheck.ids(try ServiceCheck.get(server, "/v1/missions")) == [])
      let metrics = try ServiceCheck.get(server, "/metrics").text
      #expect(metrics.contains("status=\"400\"} \(refused.count)"), "\(metrics.prefix(2000))")
    }

    @Test func aChunkedBodyOver16MiBIsRefused() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let server = try sandbox.serve()
      defer { server.stop() }
      let connection = try RawHTTP(port: server.port, timeout: 20)
      connection.send(
        "POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n"
          + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
      let header = "id,lat,lon\n"
      var chunk = Array(header.utf8)
      let row = Array("x,1,2\n".utf8)
      while chunk.count < 1 << 20 { chunk += row }
      let frame = Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10]
      var sentAll = true
      for _ in 0..<17 where sentAll { sentAll = connection.send(frame) }
      if sentAll { connection.send("0\r\n\r\n") }
      let response = try #require(RawHTTP.parse(connection.readToEnd()))
      ServiceCheck.error(response, 413)
      #expect(ServiceCheck.ids(try ServiceCheck.get(server, "/v1/missions")) == [])
      #expect(ServiceCheck.healthy(server))
    }

    @Test func percentEncodedGarbageInPathsAndIDsReachNothing() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      let long = String(repeating: "x", count: 6000)
      for path in [
        "/v1/missions/%00", "/v1/missions/sig-101%00", "/v1/missions/sig-101%00x",
        "/v1/missions/%zz", "/v1/missions/%", "/v1/missions/a%0Ab",
        "/v1/missions/a%0D%0AX-Injected:%201", "/%2e%2e/%2e%2e/etc/passwd", "/v1/%2e%2e/healthz",
        "/v1/missions/\(long)", "/v1/missions/sig-101%00/report.svg",
        "/v1/missions/sig-101%2Freport.svg",
        "/v1/missions/sig-101%2f", "/v1%2Fmissions%2Fsig-101",
      ] {
        let response = try ServiceCheck.get(server, path)
        let message = ServiceCheck.error(response, 404)
        #expect(message.count < 300, "\(path.prefix(40)): \(message.prefix(100))")
        #expect(response.headers["x-injected"] == nil)
      }
      // Bytes that are not UTF-8 once decoded name nothing either (400, issue 24).
      for path in ["/v1/missions/%ff%fe", "/v1/missions/%C0%AF"] {
        ServiceCheck.error(try ServiceCheck.get(server, path), 400)
      }
      // A NUL cuts nothing short, and an encoded `/` splits nothing: these reach no
      // mission, and sig-101 stays as it was.
      for (method, path) in [
        ("DELETE", "/v1/missions/sig-101%00x"), ("POST", "/v1/missions/sig-101%00/accept"),
        ("DELETE", "/v1/missions/sig-101%00"), ("DELETE", "/v1/missions/sig-101%2F"),
      ] {
        ServiceCheck.error(try RawHTTP.request(port: server.port, method, path), 404)
      }
      // The mission "sig-101/accept", which takes no POST: no action on sig-101.
      ServiceCheck.error(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101%2Faccept"), 405)
      let detail = try ServiceCheck.get(server, "/v1/missions/sig-101")
      #expect((detail.json?["mission"] as? [String: Any])?["state"] as? String == "open")
      // Percent-encoded ordinary characters are the same path.
      #expect(try ServiceCheck.get(server, "/v1/missions/sig%2D101").status == 200)
      #expect(ServiceCheck.healthy(server))
    }

    @Test func stopsCleanlyWithin2SecondsDespiteStalledClients() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      let half = try RawHTTP(port: server.port)
      half.send("POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\nid,")
      let stream = try RawHTTP(port: server.port)
      stream.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      #expect(!stream.readAvailable(waiting: 0.5).isEmpty)
      var idle: [RawHTTP] = []
      for _ in 0..<50 { idle.append(try RawHTTP(port: server.port)) }
      #expect(ServiceCheck.healthy(server))
      let stopped = server.stop()
      #expect(stopped.status == 0)
      #expect(stopped.seconds < 2, "stopped after \(stopped.seconds) s")
      #expect(idle.count == 50)
    }

    @Test func threeHundredConnectionsAtOnceAreAllAnswered() throws {
      let sandbox = try ServiceSandbox(demo: false)
      // The default idle timeout (30 s): with 3 s, a host slow enough that opening the 300
      // connections took 3 s saw the server close the first ones, idle, before their request
      // was sent (CI: 45 of 300 closed unanswered).
      let server = try sandbox.serve()
      defer { server.stop() }
      // 300 idle connections opened and dropped: the server keeps its own count and never
      // crashes.
      var idle: [RawHTTP] = []
      for _ in 0..<300 { idle.append(try RawHTTP(port: server.port, timeout: 10)) }
      idle.removeAll()
      #expect(ServiceCheck.healthy(server))
      // 300 requests in flight at once, well within the limit (1,024 per server thread, even
      // while the server still counts the 300 dropped ones): each is answered, none hangs.
      var connections: [RawHTTP] = []
      for _ in 0..<300 { connections.append(try RawHTTP(port: server.port, timeout: 10)) }
      for connection in connections { connection.send(Self.healthz) }
      let started = Date()
      var answered = 0
      var closed = 0
      for connection in connections {
        let bytes = connection.readToEnd()
        if bytes.isEmpty {
          closed += 1
        } else if let response = RawHTTP.parse(bytes) {
          #expect(response.status == 200 || response.status == 503)
          answered += 1
        } else {
          Issue.record("a half response: \(bytes.prefix(80))")
        }
      }
      #expect(answered == 300, "answered \(answered), closed \(closed)")
      #expect(Date().timeIntervalSince(started) < 15)
      connections.removeAll()
      #expect(ServiceCheck.healthy(server))
      let status = try ServiceCheck.get(server, "/v1/status")
      #expect(status.status == 200)
    }
  }
}
