import Foundation
import ServiceTestSupport
import Testing

extension ServeSuite {
  /// Issue 24's defects of the service itself, over real HTTP against the built binary: PUT
  /// reads JSON as an import and moves no state, the nearby answer has a size cap, the API
  /// and `missions show` give one fence answer, and a source that cannot open fails
  /// `/healthz` and is retried. (The Host defect is in `ServiceHostileInputTests`.)
  @Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct ServiceHardeningTests {
    /// The `"reward"` member of a mission object's text, as sent (`12.50`, not `12.5`).
    static func rewardText(_ response: RawHTTP.Response) -> String? {
      guard let range = response.text.range(of: #""reward":[^,}]*"#, options: .regularExpression)
      else { return nil }
      return String(response.text[range].dropFirst(#""reward":"#.count))
    }

    @Test func putReadsJSONAsAnImportDoesAndMovesNoMission() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      func put(_ id: String, _ body: String) throws -> RawHTTP.Response {
        try ServiceCheck.send(
          server, "PUT", "/v1/missions/\(id)", contentType: "application/json", body)
      }
      // A repeated name is refused as an import refuses it (422, nothing stored).
      let duplicate = ServiceCheck.error(try put("dup-1", #"{"lat":1,"lat":7,"lon":2}"#), 422)
      #expect(duplicate.contains("duplicate key 'lat'"), "\(duplicate)")
      let imported = try ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "application/json",
        #"[{"id":"dup-2","lat":1,"lat":7,"lon":2}]"#)
      ServiceCheck.error(imported, 422)
      ServiceCheck.error(try ServiceCheck.get(server, "/v1/missions/dup-1"), 404)
      // An id that is not text or a number is no id (main took `true` as "1").
      ServiceCheck.error(try put("1", #"{"id":true,"lat":1,"lon":2}"#), 422)
      ServiceCheck.error(try put("1", #"{"id":{"a":1},"lat":1,"lon":2}"#), 422)
      ServiceCheck.error(try ServiceCheck.get(server, "/v1/missions/1"), 404)
      #expect(try put("12", #"{"id":12,"lat":1,"lon":2}"#).status == 201)
      // A number keeps its text, as in an import.
      #expect(try put("r-1", #"{"lat":1,"lon":2,"reward":12.50,"currency":"SEK"}"#).status == 201)
      #expect(
        try ServiceCheck.send(
          server, "POST", "/v1/missions", contentType: "application/json",
          #"[{"id":"r-2","lat":1,"lon":2,"reward":12.50,"currency":"SEK"}]"#
        ).status == 201)
      let viaPut = Self.rewardText(try ServiceCheck.get(server, "/v1/missions/r-1"))
      let viaImport = Self.rewardText(try ServiceCheck.get(server, "/v1/missions/r-2"))
      #expect(
        viaPut != nil && viaPut == viaImport, "PUT \(viaPut ?? "-"), import \(viaImport ?? "-")")
      #expect(viaPut?.contains("12.50") == true, "\(viaPut ?? "-")")

      // The lifecycle is the only way to move a mission: a PUT with another state is 409.
      let started = try put("sig-103", #"{"lat":59.6,"lon":17.7,"state":"active"}"#)
      #expect(ServiceCheck.error(started, 409).contains("POST /v1/missions/{id}/ACTION"))
      let status = try ServiceCheck.get(server, "/v1/status")
      #expect(status.json?["active_mission"] is NSNull, "\(status.text)")
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-104/accept").status == 200)
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-104/cancel").status == 200)
      ServiceCheck.error(try put("sig-104", #"{"lat":59.6,"lon":17.7,"state":"open"}"#), 409)
      let detail = try ServiceCheck.get(server, "/v1/missions/sig-104")
      #expect((detail.json?["mission"] as? [String: Any])?["state"] as? String == "cancelled")
      // Its own state, or none, is a replacement; a new mission may be created in any state
      // (fixtures), as in an import.
      #expect(try put("sig-104", #"{"lat":59.6,"lon":17.7,"state":"cancelled"}"#).status == 200)
      #expect(try put("sig-104", #"{"lat":59.6,"lon":17.7,"title":"T"}"#).status == 200)
      let fixture = try put("fix-1", #"{"lat":59.6,"lon":17.7,"state":"completed"}"#)
      #expect((fixture.json?["mission"] as? [String: Any])?["state"] as? String == "completed")
    }

    @Test func theNearbyAnswerIsCappedLikeAPage() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      for k in ["9223372036854775807", "10001"] {
        let refused = try ServiceCheck.get(server, "/v1/missions?lat=59.6&lon=17.7&k=\(k)")
        #expect(ServiceCheck.error(refused, 422).contains("k must be in 0...10000"))
      }
      let most = try ServiceCheck.get(server, "/v1/missions?lat=59.6&lon=17.7&k=10000&state=any")
      #expect(ServiceCheck.ids(most).count == 6)
    }

    /// A GPX trace of `count` fixes 1 s apart, walking north 17 m a step from (`lat`, `lon`)
    /// (more than the cleaner's distance filter).
    static func walk(count: Int, lat: Double, lon: Double) -> String {
      var gpx = #"<?xml version="1.0"?><gpx version="1.1" creator="t" "#
      gpx += #"xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"# + "\n"
      for index in 0..<count {
        gpx +=
          String(
            format: #"<trkpt lat="%.6f" lon="%.6f"><time>2026-01-01T00:00:%02dZ</time></trkpt>"#,
            lat + Double(index) * 0.00015, lon, index) + "\n"
      }
      return gpx + "</trkseg></trk></gpx>\n"
    }

    @Test func theAPIAndMissionsShowGiveOneFenceAnswer() throws {
      let sandbox = try ServiceSandbox()
      let trace = sandbox.path("outside.gpx")
      // About 1 km south of sig-101 (radius 40 m): every fix is outside.
      try Self.walk(count: 20, lat: 59.608, lon: 17.72185).write(
        toFile: trace, atomically: true, encoding: .utf8)
      let server = try sandbox.serve(["--replay", trace])
      defer { server.stop() }
      func fence(_ id: String) throws -> (api: String?, fixes: Int?, show: String?) {
        let detail = try ServiceCheck.get(server, "/v1/missions/\(id)")
        let shown = try sandbox.cli(["missions", "show", id]).out.split(separator: "\n")
          .first { $0.hasPrefix("  fence") }
        let word = shown?.split(separator: " ").dropFirst().first.map(String.init)
        return (detail.json?["fence"] as? String, detail.json?["track_fixes"] as? Int, word)
      }
      // Before any fix both say unknown (the CLI said outside).
      let untracked = try fence("sig-102")
      #expect(untracked.api == "unknown" && untracked.show == "unknown", "\(untracked)")
      for action in ["accept", "start"] {
        #expect(
          try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/\(action)").status
            == 200)
      }
      var answer = try fence("sig-101")
      let deadline = Date().addingTimeInterval(60)
      while answer.fixes ?? 0 < 20, Date() < deadline {
        usleep(200_000)
        answer = try fence("sig-101")
      }
      #expect(answer.fixes == 20)
      // All 20 outside: the API said unknown here.
      #expect(answer.api == "outside" && answer.show == "outside", "\(answer)")
      let json = ServiceCheck.lines(try sandbox.cli(["missions", "show", "sig-101", "--json"]).out)
      #expect(json.first?["fence"] as? String == "outside")
    }

    @Test func aSourceThatCannotOpenFailsHealthWhileTrackedAndIsRetried() throws {
      let sandbox = try ServiceSandbox()
      let directory = sandbox.path("not-a-device")
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
      let server = try sandbox.serve(["--nmea", directory, "--source-down-limit", "1"])
      defer { server.stop() }
      #expect(ServiceCheck.healthy(server), "no mission tracked: healthy")
      for action in ["accept", "start"] {
        #expect(
          try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/\(action)").status
            == 200)
      }
      var health = try ServiceCheck.get(server, "/healthz")
      let deadline = Date().addingTimeInterval(60)
      while health.status != 503, Date() < deadline {
        usleep(200_000)
        health = try ServiceCheck.get(server, "/healthz")
      }
      #expect(health.status == 503, "\(health.text)")
      #expect(health.text.contains("while tracking"), "\(health.text)")
      // Retried: the source goes on reconnecting (main gave up at the first "is a directory").
      var source: [String: Any] = [:]
      let retried = Date().addingTimeInterval(60)
      repeat {
        source = try ServiceCheck.get(server, "/v1/status").json?["source"] as? [String: Any] ?? [:]
        if source["status"] as? String == "reconnecting" { break }
        usleep(200_000)
      } while Date() < retried
      #expect(source["status"] as? String == "reconnecting", "\(source)")
      // Still 503 while it cannot open; healthy again once the mission is no longer tracked.
      #expect(try ServiceCheck.get(server, "/healthz").status == 503)
      #expect(
        try RawHTTP.request(port: server.port, "POST", "/v1/missions/sig-101/cancel").status == 200)
      #expect(ServiceCheck.healthy(server))
    }
  }
}
