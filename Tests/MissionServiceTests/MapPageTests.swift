import Foundation
import MissionProximity
import MissionTracking
import ServiceTestSupport
import Testing

@testable import MissionService

extension ServeSuite {
  /// The live map page end to end: the built `missiontrack serve` replays the demo walk to
  /// `sig-101`, and headless Chromium loads the page from it, runs its script and dumps the DOM.
  @Suite(.serialized, .enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
  struct MapPageTests {
    @Test(.enabled(if: MapPageBrowser.chromium != nil, "chromium is not installed: skipped"))
    func pageListsTheMissionsAndShowsTheWorkerAtTheLastReplayedFix() async throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve(["--replay", ServiceSandbox.walkGPX])
      defer { server.stop() }
      for action in ["accept", "start"] {
        let response = try RawHTTP.request(
          port: server.port, "POST", "/v1/missions/sig-101/\(action)")
        try #require(response.status == 200, "\(action): \(response.status) \(response.text)")
      }

      // The replay runs as fast as possible: wait until the track stops growing.
      let fixes = try await MapPageBrowser.waitForTheTrackToSettle(
        port: server.port, mission: "sig-101")
      #expect(fixes > 10, "serve said: \(server.errorText)")
      let track = try MapPageBrowser.trackCoordinates(port: server.port, mission: "sig-101")
      let last = try #require(track.last)

      let browser = try await MapPageBrowser.load(server.url, in: sandbox.directory)
      let dom = browser.dom

      // Every demo mission is listed (the nearby query around the worker, 2 km, any state).
      let list = try #require(MapPageBrowser.element(id: "missions", in: dom))
      for id in ["sig-101", "sig-102", "sig-103", "sig-104", "sig-105", "sig-106"] {
        #expect(list.contains("data-id=\"\(id)\""), "mission \(id) is not in #missions")
      }
      let active = try #require(
        MapPageBrowser.startTag(containing: "data-id=\"sig-101\"", in: list))
      #expect(MapPageBrowser.attribute("class", of: active)?.contains("active") == true)
      #expect(MapPageBrowser.attribute("data-state", of: active) == "arrived")

      // The worker is drawn at the last delivered fix, the track has every fix.
      let worker = try #require(MapPageBrowser.startTag(id: "worker", in: dom))
      let latitude = try #require(
        MapPageBrowser.attribute("data-lat", of: worker).flatMap(Double.init))
      let longitude = try #require(
        MapPageBrowser.attribute("data-lon", of: worker).flatMap(Double.init))
      #expect(abs(latitude - last.latitude) < 1e-9)
      #expect(abs(longitude - last.longitude) < 1e-9)
      let trackTag = try #require(MapPageBrowser.startTag(id: "track", in: dom))
      #expect(MapPageBrowser.attribute("data-fixes", of: trackTag) == String(track.count))

      // The active mission's fence (40 m) and exit margin (40 + max(20, 8) m), the scale bar.
      let fence = try #require(MapPageBrowser.startTag(id: "fence", in: dom))
      #expect(MapPageBrowser.attribute("data-mission", of: fence) == "sig-101")
      #expect(MapPageBrowser.attribute("data-radius-m", of: fence) == "40")
      let margin = try #require(MapPageBrowser.startTag(id: "exit-margin", in: dom))
      #expect(MapPageBrowser.attribute("data-radius-m", of: margin) == "60")
      let scaleBar = try #require(MapPageBrowser.startTag(id: "scale-bar", in: dom))
      #expect(MapPageBrowser.attribute("data-meters", of: scaleBar).flatMap(Double.init) != nil)

      // The fence, its exit ring, the scale bar, the track and the worker are drawn where the
      // service's geometry for the map's size puts them.
      let map = try #require(MapPageBrowser.startTag(id: "map", in: dom))
      let size = try #require(MapPageBrowser.attribute("viewBox", of: map)).split(separator: " ")
      try #require(size.count == 4, "viewBox of #map: \(size)")
      let geometry = try RawHTTP.request(
        port: server.port, "GET", "/map.json?width=\(size[2])&height=\(size[3])&mission=sig-101")
      try #require(geometry.status == 200, "map.json: \(geometry.status) \(geometry.text)")
      let drawn = try #require(geometry.json)
      // The page rounds what it draws to 0.01 px.
      func expectDrawn(_ shown: String?, at value: Any?, _ what: String) {
        let drawnValue = shown.flatMap(Double.init) ?? .nan
        let served = (value as? NSNumber)?.doubleValue ?? .nan
        #expect(
          abs(served - drawnValue) <= 0.0051,
          "\(what): drawn \(shown ?? "nothing"), served \(served)")
      }
      func attribute(_ name: String, of tag: String) -> String? {
        MapPageBrowser.attribute(name, of: tag)
      }
      let ring = try #require(drawn["fence"] as? [String: Any])
      let origin = try #require(drawn["origin"] as? [String: Any])
      expectDrawn(attribute("r", of: margin), at: ring["exit_radius_px"], "exit ring radius")
      expectDrawn(attribute("cx", of: margin), at: origin["x"], "exit ring x")
      expectDrawn(attribute("cy", of: margin), at: origin["y"], "exit ring y")
      expectDrawn(attribute("r", of: fence), at: ring["radius_px"], "fence radius")
      let bar = try #require(drawn["scale_bar"] as? [String: Any])
      expectDrawn(attribute("data-meters", of: scaleBar), at: bar["meters"], "scale bar metres")
      expectDrawn(attribute("data-px", of: scaleBar), at: bar["px"], "scale bar length")
      let points = try #require(drawn["track"] as? [[String: Any]])
      #expect(points.count == track.count)
      let line = try #require(MapPageBrowser.startTag(containing: "class=\"track\"", in: dom))
      let firstPoint = try #require(attribute("points", of: line)?.split(separator: " ").first)
      let firstXY = firstPoint.split(separator: ",").map(String.init)
      try #require(firstXY.count == 2)
      expectDrawn(firstXY[0], at: points.first?["x"], "first track point x")
      expectDrawn(firstXY[1], at: points.first?["y"], "first track point y")
      let halo = try #require(MapPageBrowser.startTag(containing: "class=\"halo\"", in: dom))
      let served = drawn["worker"] as? [String: Any]
      expectDrawn(attribute("cx", of: halo), at: served?["x"], "worker x")
      expectDrawn(attribute("cy", of: halo), at: served?["y"], "worker y")

      // The status names the active mission; the event list holds the mission's events.
      let status = try #require(MapPageBrowser.startTag(id: "status", in: dom))
      #expect(MapPageBrowser.attribute("data-active-mission", of: status) == "sig-101")
      let events = try #require(MapPageBrowser.element(id: "events", in: dom))
      #expect(events.contains("data-type=\"enter\""))
      #expect(events.contains("data-type=\"state\""))

      // Nothing went anywhere but the service, and nothing broke the page's policy or script.
      #expect(!browser.pageRequests.isEmpty)
      for url in browser.pageRequests {
        #expect(url.hasPrefix(server.url + "/"), "the page asked for \(url)")
      }
      for line in browser.log.split(separator: "\n")
      where line.contains("Content Security Policy") || line.contains("Uncaught") {
        Issue.record("chromium: \(line)")
      }
    }

    /// Two workers tracked at once (DESIGN §7): the page lists both, draws the other
    /// worker's fence, track and position beside the focus mission's, where `/map.json` puts
    /// them.
    @Test(.enabled(if: MapPageBrowser.chromium != nil, "chromium is not installed: skipped"))
    func pageShowsEveryTrackedWorkerWithItsTrackFenceAndDistance() async throws {
      let sandbox = try ServiceSandbox()
      let walk = try ServiceWatchesTests.walkThroughSig102(in: sandbox)
      try await InProcessService.run(
        sandbox, replay: ServiceSandbox.walkGPX, workerReplays: ["bo": walk], listen: true
      ) { server in
        let port = try ServiceWatchesTests.port(server)
        let url = try #require(server.url)
        #expect(
          try await ServiceWorkersTests.json(server, "PUT", "/v1/workers/bo", #"{"name":"Bo"}"#)
            .status == 201)
        let accept = #"{"worker_id":"bo"}"#
        #expect(
          try await ServiceWorkersTests.json(server, "POST", "/v1/missions/sig-102/accept", accept)
            .status == 200)
        for path in ["sig-101/accept", "sig-101/start", "sig-102/start"] {
          #expect(try await server.request("POST", "/v1/missions/\(path)").status == 200, "\(path)")
        }
        let local = try await MapPageBrowser.waitForTheTrackToSettle(port: port, mission: "sig-101")
        let bo = try await MapPageBrowser.waitForTheTrackToSettle(port: port, mission: "sig-102")
        #expect(local > 10 && bo > 10)
        let boTrack = try MapPageBrowser.trackCoordinates(port: port, mission: "sig-102")
        let boLast = try #require(boTrack.last)

        let browser = try await MapPageBrowser.load(url, in: sandbox.directory)
        let dom = browser.dom
        func attribute(_ name: String, of tag: String) -> String? {
          MapPageBrowser.attribute(name, of: tag)
        }
        // The worker list: both workers, each with its mission, fence state and distance.
        let list = try #require(MapPageBrowser.element(id: "workers", in: dom))
        for (worker, mission) in [("bo", "sig-102"), ("local", "sig-101")] {
          let entry = try #require(
            MapPageBrowser.startTag(containing: "data-id=\"\(worker)\"", in: list))
          #expect(attribute("data-tracked-mission", of: entry) == mission)
          #expect(["inside", "outside"].contains(attribute("data-fence", of: entry) ?? ""))
          #expect(attribute("data-distance-m", of: entry).flatMap(Double.init) != nil)
        }
        // The focus mission (local's) as before; bo's fence, track and position beside it.
        let fence = try #require(MapPageBrowser.startTag(id: "fence", in: dom))
        #expect(attribute("data-mission", of: fence) == "sig-101")
        let other = try #require(
          MapPageBrowser.startTag(containing: "data-worker=\"bo\"", in: dom))
        #expect(attribute("data-mission", of: other) == "sig-102")
        #expect(attribute("data-fixes", of: other) == String(boTrack.count))
        let position = try #require(
          MapPageBrowser.startTag(containing: "class=\"worker-position\"", in: dom))
        let lat = try #require(attribute("data-lat", of: position).flatMap(Double.init))
        let lon = try #require(attribute("data-lon", of: position).flatMap(Double.init))
        #expect(abs(lat - boLast.latitude) < 1e-9 && abs(lon - boLast.longitude) < 1e-9)
        #expect(MapPageBrowser.startTag(containing: "class=\"worker-track\"", in: dom) != nil)

        // Drawn where the service's geometry for the map's size puts it.
        let map = try #require(MapPageBrowser.startTag(id: "map", in: dom))
        let size = try #require(attribute("viewBox", of: map)).split(separator: " ")
        try #require(size.count == 4)
        let geometry = try RawHTTP.request(
          port: port, "GET", "/map.json?width=\(size[2])&height=\(size[3])&mission=sig-101")
        let workers = try #require(geometry.json?["workers"] as? [[String: Any]])
        #expect(workers.map { $0["id"] as? String } == ["bo", "local"])
        let served = try #require(workers.first)
        let ring = try #require(
          MapPageBrowser.startTag(containing: "class=\"worker-fence\"", in: dom))
        for (name, key) in [("cx", "fence_x"), ("cy", "fence_y"), ("r", "radius_px")] {
          let drawn = attribute(name, of: ring).flatMap(Double.init) ?? .nan
          let value = (served[key] as? NSNumber)?.doubleValue ?? .nan
          #expect(abs(drawn - value) <= 0.0051, "\(name): drawn \(drawn), served \(value)")
        }
        for line in browser.log.split(separator: "\n")
        where line.contains("Content Security Policy") || line.contains("Uncaught") {
          Issue.record("chromium: \(line)")
        }
      }
    }

    @Test func pageResourcesCarryThePolicyAndNameNoOtherOrigin() throws {
      let sandbox = try ServiceSandbox()
      let server = try sandbox.serve()
      defer { server.stop() }
      let resources = [
        ("/", "text/html", MapPage.html), ("/map.js", "text/javascript", MapPage.script),
        ("/map.css", "text/css", MapPage.style),
      ]
      for (path, type, text) in resources {
        let response = try RawHTTP.request(port: server.port, "GET", path)
        #expect(response.status == 200, "\(path)")
        #expect(response.headers["content-type"]?.hasPrefix(type) == true, "\(path)")
        #expect(response.headers["content-security-policy"] == "default-src 'self'", "\(path)")
        #expect(response.text == text, "\(path) is not MapPage's")
        // No absolute or protocol-relative URL: everything the page loads is relative.
        #expect(!text.contains("http://") && !text.contains("https://"), "\(path) names a URL")
        let quotedURL = #"["'(=]\s*((https?|wss?|data|blob|file|javascript):|//)"#
        #expect(text.range(of: quotedURL, options: .regularExpression) == nil, "\(path)")
      }
      let api = try RawHTTP.request(port: server.port, "GET", "/v1/status")
      #expect(api.headers["content-security-policy"] == "default-src 'self'")
      // No inline script or style: the policy would block them.
      let html = MapPage.html
      #expect(!html.contains("<style"))
      #expect(!html.contains("style=\""))
      #expect(html.range(of: #" on[a-z]+="#, options: .regularExpression) == nil, "a handler")
      #expect(html.components(separatedBy: "<script").count == 2)
      #expect(html.contains("<script src=\"/map.js\""))
      #expect(!MapPage.script.contains("setAttribute('style'"))
      #expect(!MapPage.script.contains("innerHTML"))
      #expect(!MapPage.script.contains("eval("))
      // The geometry comes from the service: no geodesy in the script.
      for formula in ["Math.asin", "Math.PI / 180", "6371008"] {
        #expect(!MapPage.script.contains(formula), "map.js computes \(formula)")
      }

      // The map's geometry needs the map's size, and names only a mission there is.
      let noSize = try RawHTTP.request(port: server.port, "GET", "/map.json")
      #expect(noSize.status == 400, "\(noSize.text)")
      let unknown = try RawHTTP.request(
        port: server.port, "GET", "/map.json?width=800&height=600&mission=no-such-mission")
      #expect(unknown.status == 404, "\(unknown.text)")
      let empty = try RawHTTP.request(port: server.port, "GET", "/map.json?width=800&height=600")
      #expect(empty.status == 200 && empty.text.hasPrefix(#"{"center":"#), "\(empty.text)")
    }

    /// The page listens for the engine's event types, the one list (`TrackingEvent.types`),
    /// which names the type of an event of every kind.
    @Test func pageListensForEveryEventTypeOfTheEngine() throws {
      let time = Date(timeIntervalSince1970: 1_700_000_000)
      let fix = Fix(
        time: time, coordinate: try Coordinate(latitude: 1, longitude: 2), source: "test")
      let kinds: [TrackingEvent.Kind] = [
        .fix(fix, distanceToMissionMeters: 1, travelledMeters: 0),
        .enter(fenceID: "m", distanceMeters: 1, initial: false),
        .dwell(fenceID: "m", dwellSeconds: 1),
        .exit(fenceID: "m", distanceMeters: 70), .crossed(fenceID: "m", closestDistanceMeters: 3),
        .state(from: .accepted, to: .active), .source(.connected, detail: ""),
        .rejected(reason: "stale", count: 2), .nearby(watchID: "w", distanceMeters: 5),
      ]
      let types = kinds.map { TrackingEvent(time: time, missionID: "m", kind: $0).type }
      #expect(types == TrackingEvent.types)
      #expect(MapPage.html.contains(#"data-event-types="\#(types.joined(separator: " "))""#))
      #expect(!MapPage.html.contains(MapPage.eventTypesPlaceholder))
    }

    /// The map fits the focus fence's exit ring (radius + max(20 m, 20 %)) with the report's
    /// land around it and the track, at one scale, centred on the mission.
    @Test func mapGeometryFitsTheExitRingAndTheTrack() throws {
      let mission = Mission(
        id: "m-1", coordinate: try Coordinate(latitude: 48.85, longitude: 2.35),
        geofenceRadiusMeters: 100)
      // 0.01° of latitude north of the mission: 1,112 m, beyond the ring's 120 m × 1.35.
      let north = try Coordinate(latitude: 48.86, longitude: 2.35)
      let track = [mission.coordinate, north].enumerated().map { index, coordinate in
        Fix(time: Date(timeIntervalSince1970: Double(index)), coordinate: coordinate, source: "t")
      }
      let geometry = MapPageGeometry(
        width: 600, height: 400, focus: mission, track: track, missions: [mission],
        listCenter: mission.coordinate)
      let json = try #require(
        try JSONSerialization.jsonObject(with: Data(geometry.json.utf8)) as? [String: Any])
      func number(_ object: Any?, _ key: String) -> Double {
        ((object as? [String: Any])?[key] as? NSNumber)?.doubleValue ?? .nan
      }
      let scale = number(json, "px_per_m")
      #expect(number(json["fence"], "exit_radius_m") == 120)
      #expect(abs(number(json["fence"], "exit_radius_px") - 120 * scale) < 1e-9)
      // The box: 162 m below the mission to the last fix at 1,112 m above, in 400 − 2 × 56 px.
      let span = 162 + mission.coordinate.distance(to: north)
      #expect(abs(scale - 288 / span) < 1e-6 * scale)
      // Page points are sent to 0.01 px.
      let origin = json["origin"]
      let worker = json["worker"]
      #expect(abs(number(origin, "x") - 300) <= 0.005)
      #expect(abs(number(worker, "x") - 300) <= 0.005)
      #expect(
        abs(
          number(origin, "y") - number(worker, "y") - mission.coordinate.distance(to: north) * scale
        ) <= 0.01)
      #expect(
        abs(number(worker, "from_list_center_m") - mission.coordinate.distance(to: north)) < 1e-6)
      let bar = number(json["scale_bar"], "px")
      #expect(bar <= 170 && bar > 170 / 2.5)
    }

    /// `Tools/lint`'s ESLint, with the project's rules, passes map.js and catches a name
    /// that is not defined planted in it.
    @Test(.enabled(if: MapPageBrowser.eslint != nil, "eslint is not installed: skipped"))
    func linterPassesTheScriptAndCatchesAPlantedError() throws {
      let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
      let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("maplint-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      defer { try? FileManager.default.removeItem(at: directory) }
      let script = try String(
        contentsOf: root.appendingPathComponent("Sources/MissionService/MapPage/map.js"),
        encoding: .utf8)
      let planted = script.replacingOccurrences(
        of: "function renderMap() {", with: "function renderMap() {\n    undefinedThing += 1;")
      #expect(planted != script)
      var results: [(status: Int32, output: String)] = []
      for (name, text) in [("clean.js", script), ("planted.js", planted)] {
        try text.write(
          to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(MapPageBrowser.eslint))
        process.arguments = [
          "--no-eslintrc", "-c", root.appendingPathComponent("Tools/map.eslintrc.json").path,
          "-f", "unix", "--max-warnings", "0", name,
        ]
        process.currentDirectoryURL = directory
        var environment = ProcessInfo.processInfo.environment
        environment["NODE_PATH"] = "/usr/share/nodejs"
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(
          decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        results.append((process.terminationStatus, output))
      }
      #expect(results[0].status == 0, "map.js: \(results[0].output)")
      #expect(results[1].status != 0)
      #expect(results[1].output.contains("'undefinedThing' is not defined"), "\(results[1].output)")
    }
  }
}

/// Headless Chromium against a running `serve`, and reading what it leaves.
enum MapPageBrowser {
  /// Chromium on the PATH (or `$CHROMIUM`), nil when absent.
  static let chromium: String? = {
    let environment = ProcessInfo.processInfo.environment
    if let given = environment["CHROMIUM"], FileManager.default.isExecutableFile(atPath: given) {
      return given
    }
    let directories = (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    for name in ["chromium", "chromium-browser"] {
      for directory in directories {
        let path = "\(directory)/\(name)"
        if FileManager.default.isExecutableFile(atPath: path) { return path }
      }
    }
    return nil
  }()

  /// ESLint on the PATH (`Tools/lint`'s JavaScript linter), nil when absent.
  static let eslint: String? = {
    let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
      .split(separator: ":")
    return directories.map { "\($0)/eslint" }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }()

  /// Polls the mission until it has fixes and their count has not changed for a second.
  static func waitForTheTrackToSettle(port: Int, mission id: String) async throws -> Int {
    var previous = -1
    var steady = 0
    var last = ""
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      let response = try RawHTTP.request(port: port, "GET", "/v1/missions/\(id)")
      last = "\(response.status) \(response.text.prefix(300))"
      let count = (response.json?["track_fixes"] as? NSNumber)?.intValue ?? 0
      if count > 0 && count == previous {
        steady += 1
        if steady >= 4 { return count }
      } else {
        steady = 0
      }
      previous = count
      try await Task.sleep(for: .milliseconds(250))
    }
    Issue.record("the track of \(id) did not settle (\(previous) fixes); last answer: \(last)")
    return previous
  }

  /// The delivered track as (latitude, longitude), read from its GeoJSON (a LineString
  /// feature, a Point feature, or a collection of them).
  static func trackCoordinates(port: Int, mission id: String) throws
    -> [(latitude: Double, longitude: Double)]
  {
    let response = try RawHTTP.request(port: port, "GET", "/v1/missions/\(id)/track?format=geojson")
    try #require(response.status == 200, "track: \(response.status) \(response.text)")
    let document = try JSONSerialization.jsonObject(with: Data(response.body))
    var out: [(latitude: Double, longitude: Double)] = []
    func position(_ value: Any?) {
      guard let pair = value as? [NSNumber], pair.count >= 2 else { return }
      out.append((pair[1].doubleValue, pair[0].doubleValue))
    }
    func feature(_ value: Any?) {
      guard let object = value as? [String: Any],
        let geometry = object["geometry"] as? [String: Any]
      else { return }
      switch geometry["type"] as? String {
      case "LineString": (geometry["coordinates"] as? [Any])?.forEach(position)
      case "Point": position(geometry["coordinates"])
      default: break
      }
    }
    if let object = document as? [String: Any], object["type"] as? String == "FeatureCollection" {
      (object["features"] as? [Any])?.forEach(feature)
    } else {
      feature(document)
    }
    return out
  }

  /// What Chromium made of the page: the DOM after its script ran (5 s of virtual time), the
  /// URLs the page itself asked for (from the net log), and Chromium's log (console messages).
  struct Run {
    var dom: String
    var pageRequests: [String]
    var log: String
  }

  /// Loads `url` in headless Chromium and dumps its DOM; with `$MISSIONTRACK_MAP_SCREENSHOT`
  /// set, also saves a screenshot there. Files go to `directory`.
  static func load(_ base: String, in directory: URL) async throws -> Run {
    let url = base + "/"
    let netLog = directory.appendingPathComponent("net.json").path
    // A profile of its own (tests may run beside other Chromiums), no background traffic.
    let common = [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
      "--user-data-dir=" + directory.appendingPathComponent("chromium").path,
      "--window-size=1280,900", "--virtual-time-budget=5000",
    ]
    let run = try await chromium(
      common + ["--enable-logging=stderr", "--v=0", "--log-net-log=" + netLog, "--dump-dom", url],
      in: directory, tag: "chromium")
    try #require(run.status == 0, "chromium failed: \(run.err.suffix(2000))")
    if let shot = ProcessInfo.processInfo.environment["MISSIONTRACK_MAP_SCREENSHOT"] {
      _ = try await chromium(common + ["--screenshot=" + shot, url], in: directory, tag: "shot")
    }
    return Run(dom: run.out, pageRequests: pageRequests(netLog: netLog), log: run.err)
  }

  /// The URLs of requests that the page started (their initiator is an origin; Chromium's own
  /// requests have none).
  private static func pageRequests(netLog path: String) -> [String] {
    guard let data = FileManager.default.contents(atPath: path),
      let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let events = object["events"] as? [[String: Any]]
    else {
      Issue.record("no readable net log at \(path)")
      return []
    }
    var urls: [String] = []
    for event in events {
      guard let parameters = event["params"] as? [String: Any],
        let url = parameters["url"] as? String, let initiator = parameters["initiator"] as? String,
        initiator.hasPrefix("http") || initiator.hasPrefix("null")
      else { continue }
      if !urls.contains(url) { urls.append(url) }
    }
    return urls
  }

  /// Runs Chromium to its end (killed after 90 s); its standard output and error.
  private static func chromium(_ arguments: [String], in directory: URL, tag: String)
    async throws -> (status: Int32, out: String, err: String)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try #require(chromium))
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let out = directory.appendingPathComponent("\(tag).out")
    let err = directory.appendingPathComponent("\(tag).err")
    for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.runWithDefaultSignalMask()
    let deadline = Date().addingTimeInterval(90)
    while process.isRunning {
      if Date() > deadline {
        process.terminate()
        Issue.record("chromium took over 90 s")
        break
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    process.waitUntilExit()
    func text(_ file: URL) -> String { (try? String(contentsOf: file, encoding: .utf8)) ?? "" }
    return (process.terminationStatus, text(out), text(err))
  }

  // MARK: - reading the dumped DOM

  /// The start tag of the element with `id` (`<g id="worker" …>`).
  static func startTag(id: String, in dom: String) -> String? {
    startTag(containing: " id=\"\(id)\"", in: dom)
  }

  /// The first start tag in `text` that holds `fragment`.
  static func startTag(containing fragment: String, in text: String) -> String? {
    guard let range = text.range(of: fragment),
      let open = text[..<range.lowerBound].lastIndex(of: "<"),
      let close = text[range.upperBound...].firstIndex(of: ">")
    else { return nil }
    return String(text[open...close])
  }

  /// The element with `id` from its start tag to the first end tag of its name (enough for
  /// the lists, whose items hold no element of the same name).
  static func element(id: String, in dom: String) -> String? {
    guard let tag = startTag(id: id, in: dom), let start = dom.range(of: tag) else { return nil }
    let name = tag.dropFirst().prefix { $0.isLetter || $0.isNumber }
    guard let end = dom[start.upperBound...].range(of: "</\(name)>") else { return nil }
    return String(dom[start.lowerBound..<end.upperBound])
  }

  /// The value of attribute `name` in a start tag.
  static func attribute(_ name: String, of tag: String) -> String? {
    guard let range = tag.range(of: " \(name)=\"") else { return nil }
    let rest = tag[range.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    return String(rest[..<end])
      .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
  }
}
