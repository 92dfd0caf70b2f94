import Foundation
import Testing

@testable import MissionService

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The live map page end to end: the built `missiontrack serve` replays the demo walk to
/// `sig-101`, and headless Chromium loads the page from it, runs its script and dumps the DOM.
@Suite(
  .serialized,
  .enabled(if: MapPageHarness.tool != nil, "missiontrack is not built: run swift build first"))
struct MapPageTests {
  @Test(.enabled(if: MapPageHarness.chromium != nil, "chromium is not installed: skipped"))
  func pageListsTheMissionsAndShowsTheWorkerAtTheLastReplayedFix() async throws {
    let harness = try MapPageHarness()
    defer { harness.stop() }
    try await harness.startServingTheDemoWalk()

    // The replay runs as fast as possible: wait until the track stops growing.
    let fixes = try await harness.waitForTheTrackToSettle(mission: "sig-101")
    #expect(fixes > 10)
    let track = try await harness.trackCoordinates(mission: "sig-101")
    let last = try #require(track.last)

    let browser = try await harness.loadPageInChromium()
    let dom = browser.dom

    // Every demo mission is listed (the nearby query around the worker, 2 km, any state).
    let list = try #require(MapPageHarness.element(id: "missions", in: dom))
    for id in ["sig-101", "sig-102", "sig-103", "sig-104", "sig-105", "sig-106"] {
      #expect(list.contains("data-id=\"\(id)\""), "mission \(id) is not in #missions")
    }
    let active = try #require(MapPageHarness.startTag(containing: "data-id=\"sig-101\"", in: list))
    #expect(MapPageHarness.attribute("class", of: active)?.contains("active") == true)
    #expect(MapPageHarness.attribute("data-state", of: active) == "arrived")

    // The worker is drawn at the last delivered fix, the track has every fix.
    let worker = try #require(MapPageHarness.startTag(id: "worker", in: dom))
    let latitude = try #require(
      MapPageHarness.attribute("data-lat", of: worker).flatMap(Double.init))
    let longitude = try #require(
      MapPageHarness.attribute("data-lon", of: worker).flatMap(Double.init))
    #expect(abs(latitude - last.latitude) < 1e-9)
    #expect(abs(longitude - last.longitude) < 1e-9)
    let trackTag = try #require(MapPageHarness.startTag(id: "track", in: dom))
    #expect(MapPageHarness.attribute("data-fixes", of: trackTag) == String(track.count))

    // The active mission's fence (40 m) and exit margin (40 + max(20, 8) m), the scale bar.
    let fence = try #require(MapPageHarness.startTag(id: "fence", in: dom))
    #expect(MapPageHarness.attribute("data-mission", of: fence) == "sig-101")
    #expect(MapPageHarness.attribute("data-radius-m", of: fence) == "40")
    let margin = try #require(MapPageHarness.startTag(id: "exit-margin", in: dom))
    #expect(MapPageHarness.attribute("data-radius-m", of: margin) == "60")
    let scaleBar = try #require(MapPageHarness.startTag(id: "scale-bar", in: dom))
    #expect(MapPageHarness.attribute("data-meters", of: scaleBar).flatMap(Double.init) != nil)

    // The status names the active mission; the event list holds the mission's events.
    let status = try #require(MapPageHarness.startTag(id: "status", in: dom))
    #expect(MapPageHarness.attribute("data-active-mission", of: status) == "sig-101")
    let events = try #require(MapPageHarness.element(id: "events", in: dom))
    #expect(events.contains("data-type=\"enter\""))
    #expect(events.contains("data-type=\"state\""))

    // Nothing went anywhere but the service, and nothing broke the page's policy or script.
    #expect(!browser.pageRequests.isEmpty)
    for url in browser.pageRequests {
      #expect(url.hasPrefix(harness.origin + "/"), "the page asked for \(url)")
    }
    for line in browser.log.split(separator: "\n")
    where line.contains("Content Security Policy") || line.contains("Uncaught") {
      Issue.record("chromium: \(line)")
    }
  }

  @Test func pageResourcesCarryThePolicyAndNameNoOtherOrigin() async throws {
    let harness = try MapPageHarness()
    defer { harness.stop() }
    try await harness.startServingTheDemoWalk()
    let resources = [
      ("/", "text/html", MapPage.html), ("/map.js", "text/javascript", MapPage.script),
      ("/map.css", "text/css", MapPage.style),
    ]
    for (path, type, text) in resources {
      let response = try await harness.get(path)
      #expect(response.status == 200, "\(path)")
      #expect(response.header("Content-Type")?.hasPrefix(type) == true, "\(path)")
      #expect(response.header("Content-Security-Policy") == "default-src 'self'", "\(path)")
      #expect(response.body == text, "\(path) is not MapPage's")
      // No absolute or protocol-relative URL: everything the page loads is relative.
      #expect(!text.contains("http://") && !text.contains("https://"), "\(path) names a URL")
      let quotedURL = #"["'(=]\s*((https?|wss?|data|blob|file|javascript):|//)"#
      #expect(text.range(of: quotedURL, options: .regularExpression) == nil, "\(path)")
    }
    let api = try await harness.get("/v1/status")
    #expect(api.header("Content-Security-Policy") == "default-src 'self'")
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
  }
}

/// A temporary database, a running `missiontrack serve` and headless Chromium runs against it.
final class MapPageHarness {

  /// The package root, found from this file (Tests/MissionServiceTests/MapPageTests.swift).
  static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The built `missiontrack` (next to the test bundle, or in .build), nil when not built.
  static let tool: String? = {
    let build = packageRoot.appendingPathComponent(".build")
    let candidates = [
      Bundle.main.bundleURL.appendingPathComponent("missiontrack"),
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("missiontrack"),
      build.appendingPathComponent("debug/missiontrack"),
      build.appendingPathComponent("release/missiontrack"),
    ]
    return candidates.map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

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

  let directory: URL
  var databasePath: String { directory.appendingPathComponent("map.sqlite").path }
  private(set) var server: Process?
  private(set) var origin = ""

  init() throws {
    directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("mt-map-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  /// Imports the demo missions, serves them with the demo walk as the replayed receiver on a
  /// free loopback port, then accepts and starts `sig-101` over HTTP.
  func startServingTheDemoWalk() async throws {
    let root = MapPageHarness.packageRoot.path
    let imported = try await run(
      ["missions", "import", root + "/Traces/demo/missions.geojson", "--db", databasePath],
      tag: "import")
    try #require(imported == 0, "missions import failed: \(read("import.err"))")
    let process = try start(
      [
        "serve", "--db", databasePath, "--listen", "127.0.0.1:0", "--replay",
        root + "/Traces/demo/walk.gpx",
      ], tag: "serve")
    server = process
    let deadline = Date().addingTimeInterval(20)
    while origin.isEmpty {
      let err = read("serve.err")
      if let range = err.range(of: "serving on http://") {
        let rest = err[range.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "\n" || $0 == " " || $0 == "/" }) {
          origin = "http://" + rest[..<end]
        }
      }
      if origin.isEmpty {
        try #require(process.isRunning, "serve exited: \(err)")
        try #require(Date() < deadline, "serve did not say where it serves: \(err)")
        try await Task.sleep(for: .milliseconds(50))
      }
    }
    for action in ["accept", "start"] {
      let response = try await post("/v1/missions/sig-101/\(action)")
      try #require(response.status == 200, "\(action): \(response.status) \(response.body)")
    }
  }

  /// Polls the mission until it has fixes and their count has not changed for a second.
  func waitForTheTrackToSettle(mission id: String) async throws -> Int {
    var previous = -1
    var steady = 0
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
      let response = try await get("/v1/missions/\(id)")
      let object =
        try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
      let count = (object?["track_fixes"] as? NSNumber)?.intValue ?? 0
      if count > 0 && count == previous {
        steady += 1
        if steady >= 4 { return count }
      } else {
        steady = 0
      }
      previous = count
      try await Task.sleep(for: .milliseconds(250))
    }
    Issue.record("the track of \(id) did not settle (\(previous) fixes)")
    return previous
  }

  /// The delivered track as (latitude, longitude), read from its GeoJSON (a LineString
  /// feature, a Point feature, or a collection of them).
  func trackCoordinates(mission id: String) async throws -> [(latitude: Double, longitude: Double)]
  {
    let response = try await get("/v1/missions/\(id)/track?format=geojson")
    try #require(response.status == 200, "track: \(response.status) \(response.body)")
    let document = try JSONSerialization.jsonObject(with: Data(response.body.utf8))
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
  struct BrowserRun {
    var dom: String
    var pageRequests: [String]
    var log: String
  }

  /// Loads the page in headless Chromium and dumps its DOM; with `$MISSIONTRACK_MAP_SCREENSHOT`
  /// set, also saves a screenshot there.
  func loadPageInChromium() async throws -> BrowserRun {
    let netLog = directory.appendingPathComponent("net.json").path
    // A profile of its own (tests may run beside other Chromiums), no background traffic.
    let common = [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
      "--user-data-dir=" + directory.appendingPathComponent("chromium").path,
      "--window-size=1280,900", "--virtual-time-budget=5000",
    ]
    let status = try await runChromium(
      common + [
        "--enable-logging=stderr", "--v=0", "--log-net-log=" + netLog, "--dump-dom", origin + "/",
      ], tag: "chromium")
    try #require(status == 0, "chromium failed: \(read("chromium.err").suffix(2000))")
    if let shot = ProcessInfo.processInfo.environment["MISSIONTRACK_MAP_SCREENSHOT"] {
      _ = try await runChromium(common + ["--screenshot=" + shot, origin + "/"], tag: "screenshot")
    }
    return BrowserRun(
      dom: read("chromium.out"), pageRequests: pageRequests(netLog: netLog),
      log: read("chromium.err"))
  }

  /// The URLs of requests that the page started (their initiator is an origin; Chromium's own
  /// requests have none).
  private func pageRequests(netLog path: String) -> [String] {
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

  /// Stops the server (SIGINT, as a user would).
  func stop() {
    guard let server, server.isRunning else { return }
    kill(server.processIdentifier, SIGINT)
    let deadline = Date().addingTimeInterval(5)
    while server.isRunning && Date() < deadline { usleep(20_000) }
    if server.isRunning { server.terminate() }
  }

  // MARK: - HTTP

  struct Response {
    var status: Int
    var headers: [String: String]
    var body: String

    func header(_ name: String) -> String? {
      headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
  }

  func get(_ path: String) async throws -> Response { try await request("GET", path) }
  func post(_ path: String) async throws -> Response { try await request("POST", path) }

  private func request(_ method: String, _ path: String) async throws -> Response {
    var request = URLRequest(url: try #require(URL(string: origin + path)))
    request.httpMethod = method
    request.timeoutInterval = 10
    let (data, response) = try await URLSession.shared.data(for: request)
    let http = try #require(response as? HTTPURLResponse)
    var headers: [String: String] = [:]
    for (key, value) in http.allHeaderFields {
      headers[String(describing: key)] = String(describing: value)
    }
    return Response(
      status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
  }

  // MARK: - processes

  private func start(_ arguments: [String], tag: String, executable: String? = nil) throws
    -> Process
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable ?? MapPageHarness.tool!)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    for stream in ["out", "err"] {
      _ = FileManager.default.createFile(
        atPath: directory.appendingPathComponent("\(tag).\(stream)").path, contents: nil)
    }
    process.standardOutput = try FileHandle(
      forWritingTo: directory.appendingPathComponent("\(tag).out"))
    process.standardError = try FileHandle(
      forWritingTo: directory.appendingPathComponent("\(tag).err"))
    try process.run()
    return process
  }

  private func run(_ arguments: [String], tag: String) async throws -> Int32 {
    try await wait(for: start(arguments, tag: tag), seconds: 30)
  }

  private func runChromium(_ arguments: [String], tag: String) async throws -> Int32 {
    try await wait(
      for: start(arguments, tag: tag, executable: MapPageHarness.chromium), seconds: 90)
  }

  private func wait(for process: Process, seconds: Double) async throws -> Int32 {
    let deadline = Date().addingTimeInterval(seconds)
    while process.isRunning {
      if Date() > deadline {
        process.terminate()
        Issue.record("\(process.executableURL?.lastPathComponent ?? "?") took over \(seconds) s")
        break
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    process.waitUntilExit()
    return process.terminationStatus
  }

  private func read(_ name: String) -> String {
    (try? String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)) ?? ""
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
