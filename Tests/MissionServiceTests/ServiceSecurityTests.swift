import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// Who may call the service and what every response tells a browser: loopback by default,
  /// a bearer token for anything else, no CORS unless asked, the content security policy
  /// everywhere; and the flags of `serve` refuse hostile values as usage errors. The policy's
  /// rules (token, cookie, Host, Origin, CORS) are checked in-process (`InProcessService`);
  /// what needs the binary (flags, the token file, a refusal before the body, the server's
  /// own headers) end to end.
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceSecurityTests {
    static let token = "s3cret-Token-0123456789"

    /// Runs `serve ARGUMENTS` expecting it to exit at once; a free loopback port unless the
    /// arguments name one.
    static func refusedServe(_ sandbox: ServiceSandbox, _ arguments: [String]) throws
      -> (status: Int32, out: String, err: String)
    {
      let listen = arguments.contains("--listen") ? [] : ["--listen", "127.0.0.1:0"]
      // Killed after 60 s: only a guard against a serve that does not refuse.
      return try sandbox.cli(["serve"] + listen + arguments, timeout: 60)
    }

    @Test func listensOnLoopbackByDefault() throws {
      let sandbox = try ServiceSandbox(demo: false)
      do {
        let server = try sandbox.serve(listen: nil)
        defer { server.stop() }
        #expect(server.url == "http://127.0.0.1:8947")
      } catch let failure as ServeProcess.Failure {
        // Another process holds the default port: the refusal still names the default address.
        #expect(failure.description.contains("127.0.0.1:8947"), "\(failure)")
      }
    }

    @Test(arguments: ["0.0.0.0:0", "[::]:0", "10.1.2.3:0", "192.168.0.1:8947", "[2001:db8::1]:0"])
    func anAddressButLoopbackNeedsATokenFile(listen: String) throws {
      let sandbox = try ServiceSandbox(demo: false)
      let result = try Self.refusedServe(sandbox, ["--listen", listen])
      #expect(result.status == 64)
      #expect(result.err.split(separator: "\n").count == 1, "\(result.err)")
      #expect(result.err.contains("--token-file"))
    }

    @Test func everyRequestButHealthzNeedsTheBearerToken() async throws {
      let sandbox = try ServiceSandbox()
      // As `serve --listen 0.0.0.0:… --token-file` (the file's reading is checked end to
      // end, below).
      let server = try await InProcessService(sandbox) {
        $0.host = "0.0.0.0"
        $0.token = Self.token
      }
      let good = ["Authorization": "Bearer \(Self.token)"]
      var wrongLast = Self.token
      wrongLast.removeLast()
      let wrongs: [[String: String]] = [
        [:],
        ["Authorization": "Bearer \(wrongLast)X"],
        ["Authorization": "Bearer \(Self.token.prefix(8))"],
        ["Authorization": "Bearer \(wrongLast)"],
        ["Authorization": "Bearer \(Self.token)x"],
        ["Authorization": "Bearer "],
        ["Authorization": "Bearer"],
        ["Authorization": "Bearer  \(Self.token)"],
        ["Authorization": "Basic \(Data("user:\(Self.token)".utf8).base64EncodedString())"],
        ["Authorization": Self.token],
        ["X-Token": Self.token],
        ["Cookie": "missiontrack_token=\(wrongLast)X"],
        ["Cookie": "other=\(Self.token)"],
      ]
      let requests: [(String, String)] = [
        ("GET", "/v1/status"), ("GET", "/v1/missions"), ("GET", "/v1/missions?lat=59.6&lon=17.7"),
        ("GET", "/v1/missions/sig-101"), ("DELETE", "/v1/missions/sig-101"),
        ("POST", "/v1/missions/sig-101/accept"), ("GET", "/v1/missions/sig-101/events"),
        ("GET", "/v1/events"), ("GET", "/metrics"), ("GET", "/"), ("GET", "/no/such/path"),
        ("PATCH", "/v1/missions"), ("GET", "/v1/status?access_token=\(Self.token)"),
      ]
      for (method, path) in requests {
        for headers in wrongs {
          let response = try await server.request(method, path, headers: headers)
          ServiceCheck.error(response, 401)
          #expect(response.headers["www-authenticate"] == "Bearer", "\(method) \(path)")
        }
      }
      // Nothing the refused requests asked for happened.
      let detail = try await ServiceCheck.get(server, "/v1/missions/sig-101", headers: good)
      #expect(detail.status == 200)
      #expect((detail.json?["mission"] as? [String: Any])?["state"] as? String == "open")
      #expect(try await ServiceCheck.get(server, "/v1/status", headers: good).status == 200)
      let anyCase = ["Authorization": "bearer \(Self.token)"]
      #expect(try await ServiceCheck.get(server, "/v1/status", headers: anyCase).status == 200)
      // The map page signs in once with ?token=: a redirect that sets an HttpOnly cookie,
      // which then authorizes the page, its script and its event stream.
      ServiceCheck.error(try await ServiceCheck.get(server, "/?token=\(wrongLast)X"), 401)
      let signIn = try await ServiceCheck.get(server, "/?token=\(Self.token)")
      #expect(signIn.status == 303)
      #expect(signIn.headers["location"] == "/")
      let setCookie = signIn.headers["set-cookie"] ?? ""
      #expect(setCookie.hasPrefix("missiontrack_token=\(Self.token);"))
      #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
      let cookie = ["Cookie": "theme=dark; missiontrack_token=\(Self.token)"]
      for path in ["/", "/map.js", "/v1/status", "/v1/missions/sig-101/events"] {
        #expect(try await ServiceCheck.get(server, path, headers: cookie).status == 200, "\(path)")
      }
      // /healthz is for load balancers and systemd: open, with or without a token.
      #expect(await ServiceCheck.healthy(server))
      #expect(try await ServiceCheck.get(server, "/healthz", headers: wrongs[1]).status == 200)
    }

    /// What needs the server: the token file's first line, trimmed, is the token; a body is
    /// refused from the headers (the 401 before a byte of it is sent, so a client without the
    /// token cannot make the server hold up to 16 MiB).
    @Test func theTokenFileIsReadAndABodyIsRefusedFromItsHeaders() throws {
      let sandbox = try ServiceSandbox()
      let tokenFile = sandbox.path("token")
      try "  \(Self.token)  \nsecond line\n".write(
        toFile: tokenFile, atomically: true, encoding: .utf8)
      let server = try sandbox.serve(["--token-file", tokenFile], listen: "0.0.0.0:0")
      defer { server.stop() }
      let good = ["Authorization": "Bearer \(Self.token)"]
      #expect(try ServiceCheck.get(server, "/v1/status", headers: good).status == 200)
      for wrong in ["Bearer second line", "Bearer \(Self.token)second line"] {
        ServiceCheck.error(
          try ServiceCheck.get(server, "/v1/status", headers: ["Authorization": wrong]), 401)
      }
      for framing in ["Content-Length: \(10 << 20)", "Transfer-Encoding: chunked"] {
        let connection = try RawHTTP(port: server.port, timeout: 5)
        connection.send(
          "POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/csv\r\n\(framing)\r\n\r\n"
        )
        let response = RawHTTP.parse(connection.readAvailable(waiting: 3))
        #expect(response?.status == 401, "\(framing): no 401 from the headers")
      }
      #expect(ServiceCheck.healthy(server))
    }

    @Test func hostileTokenFilesAreRefused() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let cases: [(String, [UInt8]?, Int32)] = [
        ("missing", nil, 1),
        ("empty", [], 64),
        ("short", Array("short-token\n".utf8), 64),
        ("fifteen", Array("123456789012345".utf8), 64),
        ("blank", Array("   \n\t\n".utf8), 64),
        ("spaces", Array("abc def ghi jkl mno pqr\n".utf8), 64),
        ("tab", Array("abcdefgh\tijklmnopq\n".utf8), 64),
        ("comma", Array("abcdefgh,ijklmnopq\n".utf8), 64),
        ("non-ascii", Array("abcdefghijklmnopå\n".utf8), 64),
        ("not-utf8", [0xFF, 0xFE] + Array(repeating: 0x41, count: 20), 1),
      ]
      for (name, contents, status) in cases {
        let path = sandbox.path("token-\(name)")
        if let contents { try Data(contents).write(to: URL(fileURLWithPath: path)) }
        let result = try Self.refusedServe(sandbox, ["--token-file", path])
        #expect(result.status == status, "\(name): \(result.err)")
        #expect(result.err.split(separator: "\n").count == 1, "\(name): \(result.err)")
        #expect(!result.err.contains(Self.token), "the token is never echoed")
      }
      let directory = sandbox.path("token-dir")
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let result = try Self.refusedServe(sandbox, ["--token-file", directory])
      #expect(result.status == 1, "\(result.err)")
      // Sixteen characters is enough.
      let sixteen = sandbox.path("token-16")
      try "0123456789abcdef\n".write(toFile: sixteen, atomically: true, encoding: .utf8)
      let server = try sandbox.serve(["--token-file", sixteen])
      defer { server.stop() }
      let ok = try ServiceCheck.get(
        server, "/v1/status", headers: ["Authorization": "Bearer 0123456789abcdef"])
      #expect(ok.status == 200)
    }

    @Test func noCORSHeadersUnlessAnOriginIsGiven() async throws {
      let sandbox = try ServiceSandbox()
      let plain = try await InProcessService(sandbox)
      let origin = ["Origin": "https://evil.example"]
      for (method, path) in [("GET", "/v1/status"), ("OPTIONS", "/v1/missions"), ("GET", "/nope")] {
        let response = try await plain.request(method, path, headers: origin)
        #expect(
          !response.headers.keys.contains { $0.hasPrefix("access-control-") },
          "\(method) \(path): \(response.headers)")
      }
      ServiceCheck.error(
        try await plain.request("OPTIONS", "/v1/missions", headers: origin), 405)

      // One tracker per database: the second server gets its own sandbox.
      let other = try ServiceSandbox()
      let allowed = "https://field.example"
      let cors = try await InProcessService(other) {
        $0.corsOrigin = allowed
        $0.token = Self.token
      }
      let auth = ["Authorization": "Bearer \(Self.token)", "Origin": allowed]
      let get = try await cors.request("GET", "/v1/status", headers: auth)
      #expect(get.status == 200)
      #expect(get.headers["access-control-allow-origin"] == allowed)
      // The allowed origin may write, with the token.
      let write = try await cors.request(
        "POST", "/v1/missions/sig-101/accept", headers: auth)
      #expect(write.status == 200, "\(write.text)")
      // A browser's preflight carries no Authorization: it must not need the token.
      let preflight = try await cors.request(
        "OPTIONS", "/v1/missions/sig-101/accept",
        headers: [
          "Origin": allowed, "Access-Control-Request-Method": "POST",
          "Access-Control-Request-Headers": "authorization",
        ])
      #expect(preflight.status == 204, "\(preflight.status) \(preflight.text)")
      #expect(preflight.headers["access-control-allow-origin"] == allowed)
      #expect(
        preflight.headers["access-control-allow-headers"]?.lowercased().contains("authorization")
          == true)
      // The preflight opened nothing else.
      ServiceCheck.error(
        try await cors.request("GET", "/v1/status", headers: ["Origin": allowed]), 401
      )
      await plain.stop()
      await cors.stop()
    }

    @Test func pagesElsewhereCannotDriveTheLoopbackService() async throws {
      let sandbox = try ServiceSandbox()
      let server = try await InProcessService(sandbox)
      // Any port: in-process, the Host header is all there is of the address.
      let port = 8947
      // DNS rebinding: a page on another name that now resolves to 127.0.0.1.
      for host in ["evil.example:\(port)", "127.evil.example", "127.0.0.1.evil.example:\(port)"] {
        let response = try await ServiceCheck.get(server, "/v1/status", headers: ["Host": host])
        ServiceCheck.error(response, 403)
      }
      for host in [
        "127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "127.0.0.2", "LOCALHOST",
      ] {
        #expect(
          try await ServiceCheck.get(server, "/v1/status", headers: ["Host": host]).status == 200)
      }
      #expect(
        try await ServiceCheck.get(server, "/healthz", headers: ["Host": "evil.example"]).status
          == 200)
      // Cross-site request forgery: a form on another site POSTs an action.
      for origin in ["https://evil.example", "null", "http://127.0.0.1:\(port + 1)"] {
        for (method, path) in [
          ("POST", "/v1/missions/sig-101/accept"), ("DELETE", "/v1/missions/sig-102"),
          ("PUT", "/v1/missions/sig-103"),
        ] {
          let response = try await server.request(
            method, path,
            headers: ["Origin": origin, "Content-Type": "application/json"],
            body: Array(#"{"lat":1,"lon":2}"#.utf8))
          ServiceCheck.error(response, 403)
        }
        // Reads stay readable; the browser's CORS rules decide what the page may see.
        #expect(
          try await ServiceCheck.get(server, "/v1/missions/sig-101", headers: ["Origin": origin])
            .status
            == 200)
      }
      let detail = try await ServiceCheck.get(server, "/v1/missions/sig-101")
      #expect((detail.json?["mission"] as? [String: Any])?["state"] as? String == "open")
      #expect(try await ServiceCheck.get(server, "/v1/missions/sig-102").status == 200)
      // With a token, a reverse proxy may pass its own name: the token is the guard.
      let other = try ServiceSandbox(demo: false)
      let proxied = try await InProcessService(other) { $0.token = Self.token }
      let viaProxy = try await ServiceCheck.get(
        proxied, "/v1/status",
        headers: ["Host": "missions.example", "Authorization": "Bearer \(Self.token)"])
      #expect(viaProxy.status == 200)
      // The service's own page may write.
      let own = try await server.request(
        "POST", "/v1/missions/sig-101/accept",
        headers: ["Host": "127.0.0.1:\(port)", "Origin": "http://127.0.0.1:\(port)"])
      #expect(own.status == 200, "\(own.text)")
      await server.stop()
      await proxied.stop()
    }

    @Test func everyResponseCarriesTheContentSecurityPolicy() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      var responses: [(String, RawHTTP.Response)] = []
      func record(_ name: String, _ response: RawHTTP.Response) {
        responses.append((name, response))
      }
      for path in [
        "/", "/map.css", "/map.js", "/healthz", "/metrics", "/v1/status", "/v1/missions",
        "/v1/missions?lat=59.6&lon=17.7", "/v1/missions/sig-101", "/v1/missions/sig-101/events",
        "/v1/missions/sig-101/track", "/v1/missions/sig-101/track?format=gpx",
        "/v1/missions/sig-101/report.svg", "/nope", "/v1/missions?lat=nan&lon=0",
        "/v1/missions?limit=0",
      ] {
        record(path, try ServiceCheck.get(server, path))
      }
      record("HEAD", try ServiceCheck.get(server, "/v1/status", method: "HEAD"))
      record("405", try RawHTTP.request(port: server.port, "PATCH", "/v1/missions"))
      record(
        "415", try ServiceCheck.send(server, "POST", "/v1/missions", contentType: "text/xml", "x"))
      record(
        "201",
        try ServiceCheck.send(
          server, "POST", "/v1/missions", contentType: "text/csv", "id,lat,lon\ncsp-1,1,2\n"))
      record("409", try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/complete"))
      let big = try RawHTTP(port: server.port, timeout: 5)
      big.send(
        "POST /v1/missions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(32 << 20)\r\n\r\n")
      if let response = RawHTTP.parse(big.readAvailable(waiting: 3)) {
        record("413", response)
      } else {
        Issue.record("no 413")
      }
      let stream = try RawHTTP(port: server.port, timeout: 5)
      stream.send("GET /v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      if let response = RawHTTP.parse(stream.readAvailable(waiting: 1)) {
        record("SSE", response)
      } else {
        Issue.record("no SSE headers")
      }
      #expect(
        Set(responses.map(\.1.status)).isSuperset(of: [200, 201, 400, 404, 405, 409, 413, 415, 422])
      )
      for (name, response) in responses {
        #expect(response.headers["content-security-policy"] == "default-src 'self'", "\(name)")
        #expect(response.headers["x-content-type-options"] == "nosniff", "\(name)")
      }
      let other = try ServiceSandbox(demo: false)
      let tokenFile = other.path("token")
      try "\(Self.token)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
      let guarded = try other.serve(["--token-file", tokenFile], tag: "guarded")
      defer { guarded.stop() }
      let refused = try ServiceCheck.get(guarded, "/v1/status")
      #expect(refused.status == 401)
      #expect(refused.headers["content-security-policy"] == "default-src 'self'")
    }

    @Test func hostileServeFlagsAreUsageErrors() throws {
      let sandbox = try ServiceSandbox(demo: false)
      let tokenFile = sandbox.path("token")
      try "\(Self.token)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
      let walk = ServiceSandbox.walkGPX
      let cases: [([String], Int32)] = [
        (["--listen", "127.0.0.1"], 64),
        (["--listen", "127.0.0.1:"], 64),
        (["--listen", "127.0.0.1:70000"], 64),
        (["--listen", "127.0.0.1:-1"], 64),
        (["--listen", "127.0.0.1:http"], 64),
        (["--listen", ":8947"], 64),
        (["--listen", "example.com:0"], 64),
        (["--listen", "example.com:0", "--token-file", tokenFile], 64),
        (["--listen", "999.1.1.1:0", "--token-file", tokenFile], 64),
        (["--listen", "[::1]"], 64),
        (["--listen", "[::1:0"], 64),
        (["--listen", "[]:0"], 64),
        (["--listen"], 64),
        (["--sse-keepalive", "0"], 64),
        (["--sse-keepalive", "0x1p1"], 64),
        (["--sse-keepalive", "nan"], 64),
        (["--sse-keepalive", "1e400"], 64),
        (["--idle-timeout", "0"], 64),
        (["--idle-timeout", "-1"], 64),
        (["--idle-timeout", "abc"], 64),
        (["--idle-timeout", "2.5"], 64),
        (["--idle-timeout", "86401"], 64),
        (["--idle-timeout", "99999999999999999999"], 64),
        (["--idle-timeout"], 64),
        (["--speed", "2"], 64),
        (["--speed", "0", "--replay", walk], 64),
        (["--speed", "nan", "--replay", walk], 64),
        (["--speed", "-1", "--replay", walk], 64),
        (["--replay", sandbox.path("missing.gpx")], 1),
        (["--replay", walk, "--gpsd", "127.0.0.1:2947"], 64),
        (["--replay", walk, "--nmea", "/dev/null"], 64),
        (["--token-file"], 64),
        (["--bogus"], 64),
        (["stray"], 64),
      ]
      for (arguments, status) in cases {
        let result = try Self.refusedServe(sandbox, arguments)
        #expect(result.status == status, "\(arguments): \(result.status) \(result.err)")
        #expect(result.err.split(separator: "\n").count == 1, "\(arguments): \(result.err)")
        #expect(result.out.isEmpty)
      }
      // IPv6 loopback works, and so does a bracketed address with port 0.
      let server = try sandbox.serve(listen: "[::1]:0")
      defer { server.stop() }
      #expect(server.url.hasPrefix("http://[::1]:"))
      #expect(server.port > 0)
      #expect(server.stop().status == 0)
    }
  }
}
