import Foundation
import ServiceTestSupport
import Testing

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// Every endpoint of DESIGN.md §5, answered in-process (`InProcessService`: the service's
/// own `respond(to:)`, no socket), with the CLI on the same database as the oracle where the
/// CLI answers the same question. Outside the serialized `ServeSuite` (no server process), so
/// these run beside it; over real HTTP, `ServiceEndpointProcessTests`.
@Suite(.serialized, .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct ServiceEndpointTests {
  /// Missions beside the demo ones: both sides of the antimeridian, the pole, a mission in
  /// another state right next to an open one.
  static let edgeMissions = """
    id,lat,lon,title,state
    am-east,10,179.9995,East of the line,open
    am-west,10,-179.9995,West of the line,open
    am-far,10,-179.99,Farther west,accepted
    st-acc,59.6171,17.7241,Accepted next door,accepted
    pole-a,89.99995,0,Pole A,open
    pole-b,89.99995,180,Pole B,open
    """

  /// A mission with every field of §5's nearby answer.
  static let fullMission = """
    id,lat,lon,title,reward,currency,address,radius_m,deadline
    full-1,59.61,17.72,Full one,100,SEK,"Storgatan 1, Sigtuna",25,2027-01-02T03:04:05Z
    """

  /// The GPX 1.1 schema beside the project (DESIGN.md §4), when present.
  static let gpxSchema = ServeProcess.packageRoot.deletingLastPathComponent()
    .appendingPathComponent("shared/reference/schema/gpx-1.1.xsd").path

  /// One nearby query as the service and the CLI take it.
  static func nearbyQuery(
    lat: Double, lon: Double, radius: Double?, k: Int?, state: String?
  ) -> (path: String, arguments: [String]) {
    var path = "/v1/missions?lat=\(lat)&lon=\(lon)"
    var arguments = ["nearby", "--lat", "\(lat)", "--lon", "\(lon)", "--json"]
    if let radius {
      path += "&radius_m=\(radius)"
      arguments += ["--radius", "\(radius)"]
    }
    if let k {
      path += "&k=\(k)"
      arguments += ["--k", "\(k)"]
    }
    if let state {
      path += "&state=\(state)"
      arguments += state == "any" ? ["--all"] : ["--state", state]
    }
    return (path, arguments)
  }

  @Test func nearbyAnswersWhatTheCLIAnswers() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let imported = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "text/csv", Self.edgeMissions)
      #expect(imported.status == 201)

      let cases: [(lat: Double, lon: Double, radius: Double?, k: Int?, state: String?)] = [
        (59.617, 17.724, nil, nil, nil),
        (59.617, 17.724, 150, nil, nil),
        (59.617, 17.724, nil, 3, nil),
        (59.617, 17.724, 300, 2, "any"),
        (59.617, 17.724, nil, 1, "accepted"),
        (59.617, 17.724, 0, nil, nil),
        (59.617, 17.724, 235.30465722165061, nil, nil),
        (10, 180, 500, nil, "any"),
        (10, -180, 1500, nil, "any"),
        (10, 179.9995, 1000, 2, "any"),
        (89.99995, 90, 100, nil, nil),
        (-30, -60, 20_015_114, nil, "any"),
        (59.617, 17.724, nil, 0, nil),
      ]
      var answers: [String: [String]] = [:]
      for query in cases {
        let (path, arguments) = Self.nearbyQuery(
          lat: query.lat, lon: query.lon, radius: query.radius, k: query.k, state: query.state)
        let response = try await ServiceCheck.get(server, path)
        #expect(response.status == 200, "\(path): \(response.text)")
        #expect(response.headers["content-type"] == "application/json")
        let served = (response.json?["missions"] as? [[String: Any]]) ?? []
        let cli = try sandbox.cli(arguments)
        #expect(cli.status == 0, "\(arguments): \(cli.err)")
        let expected = ServiceCheck.lines(cli.out)
        func key(_ item: [String: Any]) -> String {
          "\(item["id"] ?? "?")|\(item["distance_m"] ?? "?")|\(item["state"] ?? "?")"
        }
        #expect(served.map(key) == expected.map(key), "\(path)")
        for item in served {
          // The whole mission comes along with the distance.
          #expect(item["lat"] is Double && item["lon"] is Double && item["radius_m"] is Double)
          #expect(item["title"] is String)
        }
        answers[path] = served.compactMap { $0["id"] as? String }
      }
      // The oracle agreeing is not enough: the answers themselves are the contract's.
      let base = "/v1/missions?lat=59.617&lon=17.724"
      #expect(answers[base + "&radius_m=0.0"] == ["sig-102"])
      #expect(answers[base + "&k=1&state=accepted"] == ["st-acc"])
      #expect(answers[base + "&k=3"]?.count == 3)
      #expect(answers[base + "&k=0"] == [])
      #expect(answers[base]?.contains("st-acc") == false)
      #expect(answers[base]?.count == 6)
      // The radius boundary is inclusive: a radius of exactly sig-104's distance keeps it.
      #expect(answers[base + "&radius_m=235.30465722165061"]?.last == "sig-104")
      #expect(
        Set(answers["/v1/missions?lat=10.0&lon=180.0&radius_m=500.0&state=any"] ?? []) == [
          "am-east", "am-west",
        ])
      #expect(
        Set(answers["/v1/missions?lat=10.0&lon=-180.0&radius_m=1500.0&state=any"] ?? []) == [
          "am-east", "am-west", "am-far",
        ])
      #expect(
        Set(answers["/v1/missions?lat=89.99995&lon=90.0&radius_m=100.0"] ?? []) == [
          "pole-a", "pole-b",
        ])
      #expect(
        answers["/v1/missions?lat=-30.0&lon=-60.0&radius_m=20015114.0&state=any"]?.count == 12)

      let full = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "text/csv", Self.fullMission)
      #expect(full.status == 201)
      let found = try await ServiceCheck.get(
        server, "/v1/missions?lat=59.61&lon=17.72&radius_m=1")
      let item = try #require((found.json?["missions"] as? [[String: Any]])?.first)
      #expect(
        Set(item.keys) == [
          "id", "lat", "lon", "distance_m", "state", "title", "reward", "currency", "address",
          "radius_m", "deadline",
        ])
      #expect(item["id"] as? String == "full-1" && item["distance_m"] as? Double == 0)
      #expect(item["reward"] as? String == "100" && item["currency"] as? String == "SEK")
      #expect(item["address"] as? String == "Storgatan 1, Sigtuna")
      #expect(item["radius_m"] as? Double == 25)
      #expect(item["deadline"] as? String == "2027-01-02T03:04:05.000Z")
    }
  }

  @Test func nearbyRefusesBadArguments() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let cases: [(String, Int)] = [
        ("lat=59.6", 400),
        ("lon=17.7", 400),
        ("lat=91&lon=0", 422),
        ("lat=0&lon=180.5", 422),
        ("lat=nan&lon=0", 400),
        ("lat=0&lon=inf", 400),
        ("lat=-Infinity&lon=0", 400),
        ("lat=1e999&lon=0", 400),
        ("lat=north&lon=0", 400),
        ("lat=0&lon=0&radius_m=-1", 422),
        ("lat=0&lon=0&radius_m=nan", 400),
        ("lat=0&lon=0&k=-1", 422),
        ("lat=0&lon=0&k=1.5", 400),
        ("lat=0&lon=0&k=99999999999999999999", 400),
        ("lat=0&lon=0&state=lost", 422),
        ("lat=0&lon=0&limit=5", 400),
        ("radius_m=5", 400),
        ("k=5", 400),
      ]
      for (query, status) in cases {
        let response = try await ServiceCheck.get(server, "/v1/missions?" + query)
        let message = ServiceCheck.error(response, status)
        #expect(!message.isEmpty, "\(query)")
      }
    }
  }

  @Test func listPagesByIDUntilNextAfterIsNull() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      var csv = "id,lat,lon,title,state\n"
      for index in 0..<23 {
        let state = index % 5 == 0 ? "accepted" : "open"
        csv += "p-\(String(format: "%02d", index)),59.\(index),17.5,Page \(index),\(state)\n"
      }
      let imported = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "text/csv", csv)
      #expect(imported.json?["imported"] as? Int == 23)

      func walk(_ query: String, limit: Int) async throws -> (ids: [String], pages: [Int]) {
        var ids: [String] = []
        var pages: [Int] = []
        var after: String?
        repeat {
          var path = "/v1/missions?limit=\(limit)" + query
          if let after { path += "&after=\(after)" }
          let response = try await ServiceCheck.get(server, path)
          #expect(response.status == 200, "\(path): \(response.text)")
          let page = ServiceCheck.ids(response)
          ids += page
          pages.append(page.count)
          let next = response.json?["next_after"]
          if let next = next as? String {
            #expect(next == page.last, "next_after is the page's last id")
            after = next
          } else {
            #expect(
              next is NSNull,
              "next_after is null on the last page, got \(String(describing: next))"
            )
            after = nil
          }
          if pages.count > 50 { break }
        } while after != nil
        return (ids, pages)
      }
      let everything = ServiceCheck.lines(try sandbox.cli(["missions", "list", "--json"]).out)
        .compactMap { $0["id"] as? String }
      #expect(everything.count == 29)
      let byPages = try await walk("", limit: 7)
      #expect(byPages.ids == everything)
      #expect(byPages.pages == [7, 7, 7, 7, 1])
      // A last page that is full still ends with null.
      let whole = try await walk("", limit: 29)
      #expect(whole.ids == everything)
      #expect(whole.pages == [29])
      let big = try await walk("", limit: 10_000)
      #expect(big.pages == [29])
      let accepted = ServiceCheck.lines(
        try sandbox.cli(["missions", "list", "--state", "accepted", "--json"]).out
      ).compactMap { $0["id"] as? String }
      #expect(accepted == ["p-00", "p-05", "p-10", "p-15", "p-20"])
      #expect(try await walk("&state=accepted", limit: 2).ids == accepted)
      // The default page is 100.
      let first = try await ServiceCheck.get(server, "/v1/missions")
      #expect(ServiceCheck.ids(first) == everything)

      for (query, status) in [
        ("limit=0", 422), ("limit=10001", 422), ("limit=-3", 422), ("limit=ten", 400),
        ("limit=2.5", 400), ("limit=", 400), ("state=lost", 422),
      ] {
        ServiceCheck.error(try await ServiceCheck.get(server, "/v1/missions?" + query), status)
      }
    }
  }

  @Test func importTakesEachFormatAllOrNothing() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      func counts(_ response: RawHTTP.Response) -> [Int?] {
        ["imported", "new", "replaced"].map { response.json?[$0] as? Int }
      }
      let json = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "application/json",
        #"[{"id":"j-1","lat":59.60,"lon":17.70,"title":"J one"},{"id":42,"lat":59.61,"lon":17.71}]"#
      )
      #expect(json.status == 201)
      #expect(counts(json) == [2, 2, 0])
      let geo = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "application/geo+json",
        #"{"type":"FeatureCollection","features":[{"type":"Feature","geometry":{"type":"Point","coordinates":[17.72,59.62]},"properties":{"id":"g-1","title":"G one","radius_m":70}}]}"#
      )
      #expect(geo.status == 201)
      #expect(counts(geo) == [1, 1, 0])
      let csv = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "text/csv; charset=utf-8",
        "id,lat,lon,title\nc-1,59.63,17.73,C one\nc-2,59.64,17.74,C two\n")
      #expect(csv.status == 201)
      #expect(counts(csv) == [2, 2, 0])
      let stored = try await ServiceCheck.get(server, "/v1/missions/g-1")
      let mission = stored.json?["mission"] as? [String: Any]
      #expect(mission?["lon"] as? Double == 17.72 && mission?["radius_m"] as? Double == 70)
      #expect(try await ServiceCheck.get(server, "/v1/missions/42").status == 200)

      // A duplicate id without replace is refused as a bad value (422), and changes nothing.
      let duplicate = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "text/csv",
        "id,lat,lon,title\nc-3,59.65,17.75,C three\nc-1,59.63,17.73,C again\n")
      #expect(ServiceCheck.error(duplicate, 422).contains("c-1"))
      #expect(try await ServiceCheck.get(server, "/v1/missions/c-3").status == 404)
      let replaced = try await ServiceCheck.send(
        server, "POST", "/v1/missions?replace=true", contentType: "text/csv",
        "id,lat,lon,title\nc-3,59.65,17.75,C three\nc-1,59.63,17.73,C again\n")
      #expect(replaced.status == 201)
      #expect(counts(replaced) == [2, 1, 1])
      let again = try await ServiceCheck.get(server, "/v1/missions/c-1")
      #expect((again.json?["mission"] as? [String: Any])?["title"] as? String == "C again")

      let before = ServiceCheck.ids(
        try await ServiceCheck.get(server, "/v1/missions?limit=10000"))
      #expect(before.count == 12)
      // A bad value on line 4 names the line, and nothing of the body is imported.
      let bad = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "text/csv",
        "id,lat,lon,title\nb-1,59.6,17.7,B one\nb-2,59.6,17.7,B two\nb-3,95,17.7,B three\n")
      let message = ServiceCheck.error(bad, 422)
      #expect(message.contains("4:") && message.contains("lat"), "\(message)")
      let badJSON = try await ServiceCheck.send(
        server, "POST", "/v1/missions", contentType: "application/json",
        "[\n{\"id\":\"b-4\",\"lat\":1,\"lon\":2},\n{\"id\":\"b-5\",\"lat\":1,\"lon\":\"east\"}\n]"
      )
      #expect(ServiceCheck.error(badJSON, 422).contains("3:"))
      for (type, status) in [
        ("application/xml", 415), ("text/plain", 415), (nil, 415), ("application/jsonx", 415),
      ] as [(String?, Int)] {
        let refused = try await ServiceCheck.send(
          server, "POST", "/v1/missions", contentType: type, "id,lat,lon\nb-6,1,2\n")
        ServiceCheck.error(refused, status)
      }
      ServiceCheck.error(
        try await ServiceCheck.send(
          server, "POST", "/v1/missions?replace=maybe", contentType: "text/csv",
          "id,lat,lon\nb-7,1,2\n"), 400)
      let after = ServiceCheck.ids(try await ServiceCheck.get(server, "/v1/missions?limit=10000"))
      #expect(after == before)
      // Imported missions are found by nearby and take actions at once.
      let near = try await ServiceCheck.get(server, "/v1/missions?lat=59.63&lon=17.73&radius_m=1")
      #expect(ServiceCheck.ids(near) == ["c-1"])
      let accepted = try await server.request("POST", "/v1/missions/c-2/accept")
      #expect(accepted.status == 200, "\(accepted.text)")
      let status = try await ServiceCheck.get(server, "/v1/status")
      #expect((status.json?["missions"] as? [String: Int])?["open"] == 11)
    }
  }

  /// A write runs on its own thread: while a large import is stored, reads on other
  /// connections (some of them served by the import's own server thread) are answered.
  @Test func oneMissionIsReadReplacedAndRemoved() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let detail = try await ServiceCheck.get(server, "/v1/missions/sig-103")
      #expect(detail.status == 200)
      let mission = detail.json?["mission"] as? [String: Any]
      #expect(mission?["id"] as? String == "sig-103")
      #expect(mission?["state"] as? String == "open")
      #expect((detail.json?["transitions"] as? [Any])?.isEmpty == true)
      #expect(detail.json?["fence"] as? String == "unknown")
      #expect(detail.json?["track_fixes"] as? Int == 0)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/missions/nope"), 404)

      // PUT creates (201), then replaces (200); the index follows at once.
      let created = try await ServiceCheck.send(
        server, "PUT", "/v1/missions/put-1", contentType: "application/json",
        #"{"lat":59.5,"lon":17.5,"title":"Put one","reward":"10","currency":"SEK"}"#)
      #expect(created.status == 201)
      #expect((created.json?["mission"] as? [String: Any])?["id"] as? String == "put-1")
      let replaced = try await ServiceCheck.send(
        server, "PUT", "/v1/missions/put-1", contentType: "application/json",
        #"{"id":"put-1","lat":59.51,"lon":17.51,"title":"Put moved"}"#)
      #expect(replaced.status == 200)
      let moved = try await ServiceCheck.get(server, "/v1/missions/put-1")
      let movedMission = moved.json?["mission"] as? [String: Any]
      #expect(movedMission?["title"] as? String == "Put moved")
      #expect(movedMission?["lat"] as? Double == 59.51)
      #expect(
        ServiceCheck.ids(
          try await ServiceCheck.get(server, "/v1/missions?lat=59.51&lon=17.51&radius_m=1"))
          == ["put-1"])
      #expect(
        ServiceCheck.ids(
          try await ServiceCheck.get(server, "/v1/missions?lat=59.5&lon=17.5&radius_m=1"))
          == [])
      // A replacement without a state keeps the stored one; with its own state, it is
      // taken; another state is refused (409): only the lifecycle moves a mission.
      #expect(
        try await server.request("POST", "/v1/missions/put-1/accept").status == 200)
      let edited = try await ServiceCheck.send(
        server, "PUT", "/v1/missions/put-1", contentType: "application/json",
        #"{"lat":59.51,"lon":17.51,"title":"Put edited"}"#)
      #expect((edited.json?["mission"] as? [String: Any])?["state"] as? String == "accepted")
      let same = try await ServiceCheck.send(
        server, "PUT", "/v1/missions/put-1", contentType: "application/json",
        #"{"lat":59.51,"lon":17.51,"title":"Put edited","state":"accepted"}"#)
      #expect(same.status == 200, "\(same.text)")
      // An empty or null state is read as open, as an import reads it.
      for state in [#""open""#, #""active""#, "null", #""""#] {
        let moved = try await ServiceCheck.send(
          server, "PUT", "/v1/missions/put-1", contentType: "application/json",
          #"{"lat":59.51,"lon":17.51,"state":"# + state + "}")
        ServiceCheck.error(moved, 409)
      }
      let transitions = try await ServiceCheck.get(server, "/v1/missions/put-1")
      #expect((transitions.json?["mission"] as? [String: Any])?["state"] as? String == "accepted")
      #expect((transitions.json?["transitions"] as? [Any])?.count == 1)
      let mismatch = try await ServiceCheck.send(
        server, "PUT", "/v1/missions/put-1", contentType: "application/json",
        #"{"id":"put-2","lat":59.5,"lon":17.5}"#)
      ServiceCheck.error(mismatch, 422)
      for body in ["[1]", "\"text\"", "12", "{", "", "null", "{\"lat\":1,"] {
        let refused = try await ServiceCheck.send(
          server, "PUT", "/v1/missions/put-1", contentType: "application/json", body)
        ServiceCheck.error(refused, 400)
      }
      ServiceCheck.error(
        try await ServiceCheck.send(
          server, "PUT", "/v1/missions/put-1", contentType: "application/json",
          #"{"lat":91,"lon":17.5}"#), 422)
      ServiceCheck.error(
        try await ServiceCheck.send(
          server, "PUT", "/v1/missions/put-1", contentType: "text/csv", "id,lat,lon\n"), 415)
      #expect(
        ((try await ServiceCheck.get(server, "/v1/missions/put-1")).json?["mission"]
          as? [String: Any])?[
            "title"] as? String == "Put edited")

      // HEAD is a GET without a body: it neither deletes nor imports.
      let head = try await ServiceCheck.get(server, "/v1/missions/put-1", method: "HEAD")
      #expect(head.status == 200)
      #expect(head.body.isEmpty)
      #expect(try await ServiceCheck.get(server, "/v1/missions/put-1").status == 200)
      #expect(try await ServiceCheck.get(server, "/v1/missions", method: "HEAD").status == 200)

      ServiceCheck.error(
        try await server.request("DELETE", "/v1/missions/nope"), 404)
      let removed = try await server.request("DELETE", "/v1/missions/put-1")
      #expect(removed.status == 200)
      #expect(removed.json?["removed"] as? String == "put-1")
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/missions/put-1"), 404)
      ServiceCheck.error(
        try await server.request("DELETE", "/v1/missions/put-1"), 404)
      #expect(
        ServiceCheck.ids(
          try await ServiceCheck.get(server, "/v1/missions?lat=59.51&lon=17.51&k=1"))
          != ["put-1"])
      // An id with `/` is named with `%2F`: a segment is decoded after the path is split.
      let slashed = try await ServiceCheck.send(
        server, "PUT", "/v1/missions/2026%2F11%2Fjob-17", contentType: "application/json",
        #"{"lat":59.52,"lon":17.52,"title":"Slashed"}"#)
      #expect(slashed.status == 201, "\(slashed.text)")
      let slashedDetail = try await ServiceCheck.get(server, "/v1/missions/2026%2F11%2Fjob-17")
      #expect(
        (slashedDetail.json?["mission"] as? [String: Any])?["id"] as? String == "2026/11/job-17")
      #expect(
        ServiceCheck.ids(
          try await ServiceCheck.get(server, "/v1/missions?lat=59.52&lon=17.52&radius_m=1"))
          == ["2026/11/job-17"])
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/missions/2026/11/job-17"), 404)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1%2Fmissions"), 404)
      #expect(
        try await server.request("DELETE", "/v1/missions/2026%2F11%2Fjob-17").status
          == 200)
      ServiceCheck.error(
        try await ServiceCheck.get(server, "/v1/missions/2026%2F11%2Fjob-17"), 404)
      let removedDemo = try await server.request("DELETE", "/v1/missions/sig-102")
      #expect(removedDemo.status == 200)
      #expect(
        !ServiceCheck.ids(
          try await ServiceCheck.get(server, "/v1/missions?lat=59.617&lon=17.724")
        )
        .contains("sig-102"))
    }
  }

  /// Accepts and starts sig-101 on a server replaying the demo walk, and waits until the
  /// replay has brought it to `arrived` and its track stops growing.
  static func trackSig101(_ server: InProcessService) async throws -> [String: Any] {
    for action in ["accept", "start"] {
      let response = try await server.request("POST", "/v1/missions/sig-101/\(action)")
      #expect(response.status == 200, "\(action): \(response.text)")
    }
    return try await trackSig101Settled(server)
  }

  @Test func lifecycleActionsAnswerWithTheirStateEvent() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox, replay: ServiceSandbox.walkGPX) { server in
      let accepted = try await server.request("POST", "/v1/missions/sig-101/accept")
      #expect(accepted.status == 200)
      let event = accepted.json?["event"] as? [String: Any]
      #expect(event?["type"] as? String == "state")
      #expect(event?["mission_id"] as? String == "sig-101")
      #expect(event?["from"] as? String == "open" && event?["to"] as? String == "accepted")
      #expect((event?["time"] as? String)?.hasSuffix("Z") == true)
      let started = try await server.request("POST", "/v1/missions/sig-101/start")
      #expect((started.json?["event"] as? [String: Any])?["to"] as? String == "active")
      // Start is idempotent: 200 with no event.
      let again = try await server.request("POST", "/v1/missions/sig-101/start")
      #expect(again.status == 200)
      #expect(again.json?["event"] is NSNull)

      // Illegal transitions: 409 with the CLI's message, naming mission, state and action.
      for (action, id) in [("complete", "sig-103"), ("start", "sig-104"), ("submit", "sig-105")] {
        let refused = try await server.request("POST", "/v1/missions/\(id)/\(action)")
        let message = ServiceCheck.error(refused, 409)
        #expect(message == "cannot \(action) mission \(id): it is open")
        let cli = try sandbox.cli(["missions", action, id])
        #expect(cli.status == 1)
        #expect(cli.err.contains(message), "CLI said: \(cli.err)")
      }
      // Only one mission is active.
      #expect(
        try await server.request("POST", "/v1/missions/sig-102/accept").status == 200)
      let second = try await server.request("POST", "/v1/missions/sig-102/start")
      #expect(ServiceCheck.error(second, 409).contains("sig-101"))
      let expired = try await server.request("POST", "/v1/missions/sig-102/expire")
      #expect((expired.json?["event"] as? [String: Any])?["to"] as? String == "expired")
      let cancelled = try await server.request("POST", "/v1/missions/sig-106/cancel")
      #expect((cancelled.json?["event"] as? [String: Any])?["to"] as? String == "cancelled")
      ServiceCheck.error(
        try await server.request("POST", "/v1/missions/nope/accept"), 404)
      ServiceCheck.error(
        try await server.request("POST", "/v1/missions/sig-101/arrive"), 404)

      let detail = try await Self.trackSig101Settled(server)
      let transitions = (detail["transitions"] as? [[String: Any]]) ?? []
      #expect(
        transitions.map { "\($0["action"] ?? "")" } == ["accept", "start", "arrive"],
        "\(transitions)")
      #expect(transitions.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
      #expect(detail["fence"] as? String == "inside" || detail["fence"] as? String == "outside")
      let fixes = detail["track_fixes"] as? Int ?? 0
      #expect(fixes > 10)

      // While tracked: no replace, no removal.
      ServiceCheck.error(
        try await server.request("DELETE", "/v1/missions/sig-101"), 409)
      ServiceCheck.error(
        try await ServiceCheck.send(
          server, "PUT", "/v1/missions/sig-101", contentType: "application/json",
          #"{"lat":59.6,"lon":17.7}"#), 409)
      let replacing = ServiceCheck.error(
        try await ServiceCheck.send(
          server, "POST", "/v1/missions?replace=true", contentType: "text/csv",
          "id,lat,lon\nsig-new,59.6,17.7\nsig-101,59.6,17.7\n"), 409)
      #expect(
        replacing == "mission 'sig-101' is being tracked: submit or cancel it before replacing it"
      )
      // All or nothing: the other row was not imported either.
      ServiceCheck.error(try await server.request("GET", "/v1/missions/sig-new"), 404)
      // A second tracked mission in an import is a conflict, naming the one there is.
      let secondTracked = ServiceCheck.error(
        try await ServiceCheck.send(
          server, "POST", "/v1/missions", contentType: "text/csv",
          "id,lat,lon,state\nsig-new,59.6,17.7,open\nsig-two,59.6,17.7,active\n"), 409)
      #expect(
        secondTracked.hasSuffix(
          ":3: field 'state' = 'active': worker 'local' already tracks mission 'sig-101' "
            + "(one active or arrived mission per worker; nothing imported)"), "\(secondTracked)")
      ServiceCheck.error(try await server.request("GET", "/v1/missions/sig-new"), 404)

      let submitted = try await server.request("POST", "/v1/missions/sig-101/submit")
      #expect((submitted.json?["event"] as? [String: Any])?["from"] as? String == "arrived")
      let completed = try await server.request("POST", "/v1/missions/sig-101/complete")
      #expect((completed.json?["event"] as? [String: Any])?["to"] as? String == "completed")
      let late = try await server.request("POST", "/v1/missions/sig-101/cancel")
      #expect(ServiceCheck.error(late, 409) == "cannot cancel mission sig-101: it is completed")

      // The exports, against the CLI's on the same database.
      let events = try await ServiceCheck.get(server, "/v1/missions/sig-101/events")
      #expect(events.status == 200)
      #expect(events.headers["content-type"] == "application/x-ndjson")
      let exported = try sandbox.cli(["export", "--format", "jsonl", "sig-101"])
      #expect(exported.status == 0)
      #expect(!exported.out.isEmpty)
      #expect(events.text == exported.out)
      let lines = ServiceCheck.lines(events.text)
      #expect(lines.first?["to"] as? String == "accepted")
      #expect(lines.last?["to"] as? String == "completed")
      #expect(lines.filter { $0["type"] as? String == "fix" }.count == fixes)
      let jsonl = try await ServiceCheck.get(server, "/v1/missions/sig-101/track?format=jsonl")
      #expect(jsonl.text == exported.out)

      let geojson = try await ServiceCheck.get(server, "/v1/missions/sig-101/track")
      #expect(geojson.status == 200)
      #expect(geojson.headers["content-type"] == "application/geo+json")
      let geometry = geojson.json?["geometry"] as? [String: Any]
      #expect(geometry?["type"] as? String == "LineString")
      #expect((geometry?["coordinates"] as? [[Double]])?.count == fixes)
      let cliGeoJSON = try sandbox.cli(["export", "--format", "geojson", "sig-101"])
      #expect(geojson.text == cliGeoJSON.out)
      let gpx = try await ServiceCheck.get(server, "/v1/missions/sig-101/track?format=gpx")
      #expect(gpx.headers["content-type"] == "application/gpx+xml")
      #expect(gpx.text == (try sandbox.cli(["export", "--format", "gpx", "sig-101"])).out)
      #expect(XMLParser(data: Data(gpx.body)).parse())
      ServiceCheck.error(
        try await ServiceCheck.get(server, "/v1/missions/sig-101/track?format=kml"), 422)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/missions/nope/track"), 404)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/missions/nope/events"), 404)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/missions/nope/report.svg"), 404)

      let report = try await ServiceCheck.get(server, "/v1/missions/sig-101/report.svg")
      #expect(report.status == 200)
      #expect(report.headers["content-type"] == "image/svg+xml")
      #expect(report.text.contains("<svg"))
      #expect(XMLParser(data: Data(report.body)).parse())

      // The live events replay stored ones first.
      let sse = try await server.request(
        "GET", "/v1/events?mission_id=sig-101&after=0", streamFor: 1.5)
      #expect(sse.headers["content-type"] == "text/event-stream")
      #expect(sse.text.contains("event: state\n"))
      #expect(sse.text.contains("id: "))
      // HEAD of the stream is its headers, and subscribes nobody.
      // (The stream read above is closed; the hub may count it until it notices: the
      // count may fall, never rise.)
      func clients() async throws -> Int? {
        try await ServiceCheck.get(server, "/metrics").text.split(separator: "\n")
          .first { $0.hasPrefix("missiontrack_sse_clients ") }
          .flatMap { Int($0.split(separator: " ").last ?? "") }
      }
      let before = try #require(try await clients())
      let head = try await ServiceCheck.get(server, "/v1/events", method: "HEAD")
      #expect(head.status == 200)
      #expect(head.headers["content-type"] == "text/event-stream")
      #expect(try #require(try await clients()) <= before)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/events?after=soon"), 400)
      ServiceCheck.error(try await ServiceCheck.get(server, "/v1/events?mission_id=nope"), 404)
    }
  }

  /// Waits until sig-101, already started, is `arrived` and its track stops growing; returns
  /// its `GET /v1/missions/sig-101`.
  static func trackSig101Settled(_ server: InProcessService) async throws -> [String: Any] {
    var last = -1
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      let detail = try await ServiceCheck.get(server, "/v1/missions/sig-101")
      let fixes = detail.json?["track_fixes"] as? Int ?? 0
      let state = (detail.json?["mission"] as? [String: Any])?["state"] as? String
      if state == "arrived" && fixes > 0 && fixes == last { return detail.json ?? [:] }
      last = fixes
      try await Task.sleep(for: .milliseconds(300))
    }
    Issue.record("sig-101 did not arrive with a settled track")
    return [:]
  }

  @Test(
    .enabled(
      if: FileManager.default.fileExists(atPath: gpxSchema)
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/xmllint"),
      "needs xmllint and the GPX 1.1 schema in ../shared/reference/schema"))
  func trackAsGPXValidatesAgainstTheSchema() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox, replay: ServiceSandbox.walkGPX) { server in
      let detail = try await Self.trackSig101(server)
      #expect(detail["track_fixes"] as? Int ?? 0 > 0)
      let gpx = try await ServiceCheck.get(server, "/v1/missions/sig-101/track?format=gpx")
      #expect(gpx.status == 200)
      let file = sandbox.path("track.gpx")
      try Data(gpx.body).write(to: URL(fileURLWithPath: file))
      let lint = Process()
      lint.executableURL = URL(fileURLWithPath: "/usr/bin/xmllint")
      lint.arguments = ["--noout", "--schema", Self.gpxSchema, file]
      lint.standardOutput = FileHandle.nullDevice
      lint.standardError = FileHandle.nullDevice
      try lint.run()
      lint.waitUntilExit()
      #expect(lint.terminationStatus == 0, "xmllint refused the served GPX")
      #expect(
        gpx.text.components(separatedBy: "<trkpt ").count - 1 == detail["track_fixes"] as? Int)
    }
  }

  @Test func wrongMethodsGet405WithAllowAndUnknownPaths404() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let wrong: [(String, String, String)] = [
        ("DELETE", "/v1/missions", "GET, HEAD, POST"),
        ("PUT", "/v1/missions", "GET, HEAD, POST"),
        ("PATCH", "/v1/missions/sig-101", "GET, HEAD, PUT, DELETE"),
        ("POST", "/v1/missions/sig-101", "GET, HEAD, PUT, DELETE"),
        ("GET", "/v1/missions/sig-101/accept", "POST"),
        ("DELETE", "/v1/missions/sig-101/start", "POST"),
        ("POST", "/v1/missions/sig-101/track", "GET, HEAD"),
        ("PUT", "/v1/missions/sig-101/events", "GET, HEAD"),
        ("DELETE", "/v1/missions/sig-101/report.svg", "GET, HEAD"),
        ("POST", "/v1/status", "GET, HEAD"),
        ("POST", "/v1/events", "GET, HEAD"),
        ("POST", "/healthz", "GET, HEAD"),
        ("DELETE", "/metrics", "GET, HEAD"),
        ("POST", "/", "GET, HEAD"),
        ("BREW", "/v1/missions", "GET, HEAD, POST"),
      ]
      for (method, path, allow) in wrong {
        let response = try await server.request(method, path)
        ServiceCheck.error(response, 405)
        #expect(response.headers["allow"] == allow, "\(method) \(path)")
      }
      #expect(
        try await ServiceCheck.get(server, "/v1/missions/sig-101").status == 200,
        "a refused method changed nothing")
      for path in [
        "/v2/missions", "/v1", "/v1/", "/v1/nothing", "/v1/missions/sig-101/nothing",
        "/v1/missions/sig-101/track/more", "/healthz/x", "/favicon.ico/x", "/v1/status/x",
        "//v1/missions", "/v1//missions",
      ] {
        ServiceCheck.error(try await ServiceCheck.get(server, path), 404)
      }
      // A browser's icon request gets an empty answer, not an error.
      let icon = try await ServiceCheck.get(server, "/favicon.ico")
      #expect(icon.status == 204 && icon.body.isEmpty)
      // HEAD answers like GET, without the body.
      for path in ["/healthz", "/v1/status", "/v1/missions/sig-101", "/", "/metrics"] {
        let head = try await ServiceCheck.get(server, path, method: "HEAD")
        let get = try await ServiceCheck.get(server, path)
        #expect(head.status == 200 && get.status == 200, "\(path)")
        #expect(head.body.isEmpty, "\(path)")
        #expect(head.headers["content-type"] == get.headers["content-type"])
      }
    }
  }

  @Test func statusHealthMetricsAndTheMapPage() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      let status = try await ServiceCheck.get(server, "/v1/status")
      #expect(status.status == 200)
      for key in ["version", "uptime_s", "active_mission", "source", "missions"] {
        #expect(status.json?[key] != nil, "\(key)")
      }
      #expect((status.json?["missions"] as? [String: Int])?["open"] == 6)
      _ = try await server.request("POST", "/v1/missions/sig-101/accept")
      let after = try await ServiceCheck.get(server, "/v1/status")
      #expect((after.json?["missions"] as? [String: Int])?["accepted"] == 1)
      #expect(await ServiceCheck.healthy(server))
      let metrics = try await ServiceCheck.get(server, "/metrics")
      #expect(metrics.status == 200)
      #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
      #expect(metrics.text.contains("missiontrack_http_requests_total{status=\"200\"}"))
      for line in metrics.text.split(separator: "\n") where !line.hasPrefix("#") {
        #expect(line.hasPrefix("missiontrack_"), "\(line)")
      }
      let page = try await ServiceCheck.get(server, "/")
      #expect(page.status == 200)
      #expect(page.headers["content-type"]?.hasPrefix("text/html") == true)
      // Nothing is loaded from outside the service.
      #expect(!page.text.contains("src=\"http") && !page.text.contains("href=\"http"))
      #expect(!page.text.contains("src=\"//") && !page.text.contains("href=\"//"))
    }
  }
}
