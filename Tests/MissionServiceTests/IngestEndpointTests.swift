import Foundation
import MissionStore
import MissionTracking
import ServiceTestSupport
import Testing

@testable import MissionService

/// `/v1/ingest/…` in-process (DESIGN §8): each client's own payloads become its worker's
/// track, answered as the client needs; strangers, wrong secrets and bad bodies are refused
/// and store nothing; resent and late batches move nothing; nothing is kept outside a
/// mission. The database is read from a connection of its own: only what is committed.
@Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct IngestEndpointTests {
  static let osmand = WorkerDevice(ingestProtocol: .osmand, deviceID: "123456", secret: "s3cret")
  static let traccar = WorkerDevice(
    ingestProtocol: .osmand, deviceID: "48241179", secret: "s3cret")
  static let gpslogger = WorkerDevice(
    ingestProtocol: .gpslogger, deviceID: "gpsl", secret: "s3cret")
  static let owntracks = WorkerDevice(
    ingestProtocol: .owntracks, deviceID: "jane/phone", secret: "s3cret")
  static let overland = WorkerDevice(
    ingestProtocol: .overland, deviceID: "iphone", secret: "0v3rland")
  static let basic = "Basic " + Data("jane:s3cret".utf8).base64EncodedString()

  @Test func eachClientsOwnPayloadBecomesItsWorkersTrackAnsweredAsItExpects() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      try await PhoneFixtures.trackSig101(
        server, worker: "phone",
        devices: [Self.osmand, Self.traccar, Self.gpslogger, Self.owntracks, Self.overland])
      let t0 = PhoneFixtures.nextSecond()
      let p = (0..<6).map { PhoneFixtures.nearSig101(north: -600 + Double($0) * 20) }

      // OsmAnd's URL (Traccar's OsmAndProtocolDecoderTest, first query: id, timestamp in
      // seconds, lat, lon, speed in knots, bearing, altitude, hdop; ours: time and place),
      // with the secret as a query item: an empty 200, as Traccar answers.
      let query = try await server.request(
        "GET",
        "/v1/ingest/osmand?id=123456&timestamp=\(Int(t0.timeIntervalSince1970))&lat=\(p[0].latitude)"
          + "&lon=\(p[0].longitude)&speed=0.0&bearing=0.0&altitude=0&hdop=0.0&secret=s3cret")
      #expect(query.status == 200 && query.body.isEmpty, "\(query.status) \(query.text)")

      // Traccar Client 9's JSON (OsmAndProtocolDecoderTest, the motionchange body).
      let traccarJSON =
        #"{"location":{"timestamp":""# + PhoneFixtures.rfc3339(t0 + 2)
        + #"","coords":{"latitude":\#(p[1].latitude),"longitude":\#(p[1].longitude),"accuracy":5,"speed":0,"heading":-1,"altitude":5},"is_moving":false,"odometer":0,"event":"motionchange","battery":{"level":1,"is_charging":false},"activity":{"type":"still"},"extras":{}},"device_id":"48241179"}"#
      let json = try await server.request(
        "POST", "/v1/ingest/osmand",
        headers: ["Content-Type": "application/json", "Authorization": "Bearer s3cret"],
        body: Array(traccarJSON.utf8))
      #expect(json.status == 200 && json.body.isEmpty, "\(json.status) \(json.text)")

      // GPSLogger's custom URL for the OsmAnd endpoint (its documentation's %LAT, %LON,
      // %TIMESTAMP, %SPD, %ALT, %ACC, %DIR placeholders, filled in), Basic auth.
      let gps = try await server.request(
        "GET",
        "/v1/ingest/osmand?id=gpsl&lat=\(p[2].latitude)&lon=\(p[2].longitude)"
          + "&timestamp=\(Int(t0.timeIntervalSince1970) + 4)&speed=1.2&altitude=30&accuracy=8&bearing=90",
        headers: ["Authorization": "Basic " + Data("user:s3cret".utf8).base64EncodedString()])
      #expect(gps.status == 200 && gps.body.isEmpty, "\(gps.status) \(gps.text)")

      // OwnTracks (the booklet's "Testing your HTTP endpoint" message, our time and place),
      // identity in X-Limit-U / X-Limit-D, Basic auth: a JSON array asking for move mode.
      let owntracksBody =
        #"{"_type":"location","t":"u","batt":11,"lat":\#(p[3].latitude),"lon":\#(p[3].longitude),"tid":"JJ","tst":\#(Int(t0.timeIntervalSince1970) + 6),"vel":5,"acc":5}"#
      let owntracks = try await server.request(
        "POST", "/v1/ingest/owntracks",
        headers: [
          "Content-Type": "application/json", "X-Limit-U": "jane", "X-Limit-D": "phone",
          "Authorization": Self.basic,
        ], body: Array(owntracksBody.utf8))
      #expect(owntracks.status == 200, "\(owntracks.text)")
      let commands =
        try JSONSerialization.jsonObject(with: Data(owntracks.body)) as? [[String: Any]]
      let configuration = commands?.first?["configuration"] as? [String: Any]
      #expect(commands?.first?["_type"] as? String == "cmd")
      #expect(configuration?["monitoring"] as? Int == 2, "tracked: move mode")

      // Overland (its README's feature): {"result":"ok"}.
      let overland = try await server.request(
        "POST", "/v1/ingest/overland",
        headers: ["Content-Type": "application/json", "Authorization": "Bearer 0v3rland"],
        body: Array(
          PhoneFixtures.overland(
            [(t0 + 8, p[4].latitude, p[4].longitude), (t0 + 10, p[5].latitude, p[5].longitude)],
            deviceID: "iphone"
          ).utf8))
      #expect(
        overland.status == 200 && overland.json?["result"] as? String == "ok", "\(overland.text)")

      // Our fix lines (`missiontrack decode`'s schema) with the service's own rule: open on
      // a loopback listen without a token.
      let line =
        #"{"time":""# + PhoneFixtures.rfc3339(t0 + 12)
        + #"","lat":\#(p[5].latitude + 0.0002),"lon":\#(p[5].longitude),"mode":3,"source":"gpx"}"#
      let fixes = try await server.send(
        "POST", "/v1/ingest/fixes?worker=phone", contentType: "application/x-ndjson", line)
      #expect(fixes.status == 200, "\(fixes.text)")
      #expect(
        fixes.json?["accepted"] as? Int == 1 && fixes.json?["duplicates"] as? Int == 0
          && fixes.json?["untracked"] as? Int == 0 && fixes.json?["rejected"] as? Int == 0,
        "\(fixes.text)")

      // Every position is committed when its reply comes: seven fixes, in time order, with
      // the sources of their protocols.
      let track = try PhoneFixtures.storedTrack(sandbox.databasePath)
      #expect(track.count == 7, "\(track.map(\.time))")
      #expect(track.map(\.time) == (0..<7).map { t0 + Double($0 * 2) })
      #expect(
        track.map(\.source) == [
          "osmand", "osmand", "osmand", "owntracks", "overland", "overland", "native",
        ], "\(track.map(\.source))")
      #expect(abs((track.first?.coordinate.latitude ?? 0) - p[0].latitude) < 1e-6)
      #expect(abs((track[3].speedMetersPerSecond ?? 0) - 5 / 3.6) < 1e-9, "vel is km/h")
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.positions(metrics, "osmand", "accepted") == 3)
      #expect(PhoneFixtures.positions(metrics, "overland", "accepted") == 2)
      #expect(PhoneFixtures.positions(metrics, "owntracks", "accepted") == 1)
      #expect(PhoneFixtures.positions(metrics, "native", "accepted") == 1)
    }
  }

  @Test func strangersAndWrongSecretsAreRefusedAsEachClientExpectsAndStoreNothing() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      try await PhoneFixtures.trackSig101(
        server, worker: "phone", devices: [Self.osmand, Self.owntracks, Self.overland])
      let t0 = PhoneFixtures.nextSecond()
      let p = PhoneFixtures.nearSig101(north: -300)
      let at = "timestamp=\(Int(t0.timeIntervalSince1970))&lat=\(p.latitude)&lon=\(p.longitude)"
      // OsmAnd query form: unknown device 400 (Traccar), wrong or missing secret 401.
      ServiceCheck.error(
        try await server.request("GET", "/v1/ingest/osmand?id=999&\(at)&secret=s3cret"), 400)
      ServiceCheck.error(
        try await server.request("GET", "/v1/ingest/osmand?id=123456&\(at)&secret=wrong"), 401)
      ServiceCheck.error(try await server.request("GET", "/v1/ingest/osmand?id=123456&\(at)"), 401)
      // Traccar Client's JSON form: unknown device 404 (Traccar).
      let json =
        #"{"location":{"timestamp":""# + PhoneFixtures.rfc3339(t0)
        + #"","coords":{"latitude":\#(p.latitude),"longitude":\#(p.longitude)}},"device_id":"999"}"#
      ServiceCheck.error(
        try await server.request(
          "POST", "/v1/ingest/osmand",
          headers: ["Content-Type": "application/json", "Authorization": "Bearer s3cret"],
          body: Array(json.utf8)), 404)
      // OwnTracks: an unknown USER/DEVICE 400, a wrong password 401.
      let location =
        #"{"_type":"location","lat":\#(p.latitude),"lon":\#(p.longitude),"tst":\#(Int(t0.timeIntervalSince1970))}"#
      for (user, status) in [("john", 400), ("jane", 401)] {
        ServiceCheck.error(
          try await server.request(
            "POST", "/v1/ingest/owntracks",
            headers: [
              "X-Limit-U": user, "X-Limit-D": "phone",
              "Authorization": "Basic " + Data("\(user):wrong".utf8).base64EncodedString(),
            ], body: Array(location.utf8)), status)
      }
      // Overland: a token no device has, or a device id with another's token: 401.
      let batch = Array(
        PhoneFixtures.overland([(t0, p.latitude, p.longitude)], deviceID: "").utf8)
      ServiceCheck.error(
        try await server.request(
          "POST", "/v1/ingest/overland", headers: ["Authorization": "Bearer nope"], body: batch),
        401)
      ServiceCheck.error(
        try await server.request(
          "POST", "/v1/ingest/overland", headers: ["Authorization": "Bearer s3cret"],
          body: Array(
            PhoneFixtures.overland([(t0, p.latitude, p.longitude)], deviceID: "iphone").utf8)),
        401)
      // Fix lines for a worker that does not exist: 404.
      ServiceCheck.error(
        try await server.send(
          "POST", "/v1/ingest/fixes?worker=nobody", contentType: nil,
          #"{"time":"2030-01-01T00:00:00Z","lat":1,"lon":2}"#), 404)
      // A control character in OwnTracks' identity headers: 400.
      ServiceCheck.error(
        try await server.request(
          "POST", "/v1/ingest/owntracks",
          headers: ["X-Limit-U": "ja\u{1}ne", "X-Limit-D": "phone", "Authorization": Self.basic],
          body: Array(location.utf8)), 400)

      #expect(try PhoneFixtures.storedTrack(sandbox.databasePath).isEmpty)
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.refused(metrics, "osmand", "unknown_device") == 2)
      #expect(PhoneFixtures.refused(metrics, "osmand", "wrong_secret") == 2)
      #expect(PhoneFixtures.refused(metrics, "owntracks", "unknown_device") == 1)
      #expect(PhoneFixtures.refused(metrics, "owntracks", "wrong_secret") == 1)
      #expect(PhoneFixtures.refused(metrics, "owntracks", "malformed") == 1)
      #expect(PhoneFixtures.refused(metrics, "overland", "unknown_device") == 1)
      #expect(PhoneFixtures.refused(metrics, "overland", "wrong_secret") == 1)
      #expect(PhoneFixtures.refused(metrics, "native", "unknown_device") == 1)
      #expect(PhoneFixtures.positions(metrics, "osmand", "accepted") == 0)
    }
  }

  /// The service keeps the registrations its phones present (`DeviceRegistrations`); a
  /// change made through its own API applies to the very next request.
  @Test func aWorkersDevicesChangedThroughTheAPIApplyToTheNextRequest() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      try await PhoneFixtures.trackSig101(server, worker: "phone", devices: [Self.osmand])
      let t0 = Int(PhoneFixtures.nextSecond().timeIntervalSince1970)
      func report(_ k: Int, secret: String) async throws -> Int {
        let p = PhoneFixtures.nearSig101(north: -600 + Double(k) * 20)
        return try await server.request(
          "GET",
          "/v1/ingest/osmand?id=123456&timestamp=\(t0 + k)&lat=\(p.latitude)&lon=\(p.longitude)"
            + "&secret=\(secret)"
        ).status
      }
      #expect(try await report(0, secret: "s3cret") == 200)
      let renewed = try await server.send(
        "PUT", "/v1/workers/phone", contentType: "application/json",
        #"{"devices":[{"protocol":"osmand","device_id":"123456","secret":"n3w"}]}"#)
      #expect(renewed.status == 200, "\(renewed.text)")
      #expect(try await report(1, secret: "s3cret") == 401)
      #expect(try await report(2, secret: "n3w") == 200)
      let removed = try await server.send(
        "PUT", "/v1/workers/phone", contentType: "application/json", #"{"devices":[]}"#)
      #expect(removed.status == 200, "\(removed.text)")
      #expect(try await report(3, secret: "n3w") == 400)
      #expect(try PhoneFixtures.storedTrack(sandbox.databasePath).count == 2)
    }
  }

  @Test func aDeviceWithoutSecretIsRefusedUnlessTheListenIsLoopback() async throws {
    let sandbox = try ServiceSandbox()
    let open = WorkerDevice(ingestProtocol: .osmand, deviceID: "open")
    let t = Int(PhoneFixtures.nextSecond().timeIntervalSince1970)
    let p = PhoneFixtures.nearSig101(north: -200)
    let path = "/v1/ingest/osmand?id=open&timestamp=\(t)&lat=\(p.latitude)&lon=\(p.longitude)"
    let exposed: (inout ServiceConfiguration) -> Void = {
      $0.host = "0.0.0.0"
      $0.token = "service-token"
    }
    try await InProcessService.run(sandbox, configure: exposed) { server in
      try server.database.putWorker(Worker(id: "phone", devices: [open, Self.osmand]))
      // Not even with the service token: a phone's credential is its device's secret.
      ServiceCheck.error(
        try await server.request(
          "GET", path, headers: ["Authorization": "Bearer service-token"]), 401)
      // A device with its secret needs no service token.
      let withSecret = try await server.request(
        "GET", path.replacingOccurrences(of: "id=open", with: "id=123456&secret=s3cret"))
      #expect(withSecret.status == 200 && withSecret.body.isEmpty, "\(withSecret.text)")
      // The rest of the API still needs the token.
      ServiceCheck.error(try await server.request("GET", "/v1/missions"), 401)
    }
    try await InProcessService.run(sandbox) { server in
      let answer = try await server.request("GET", path)
      #expect(answer.status == 200 && answer.body.isEmpty, "\(answer.text)")
    }
  }

  @Test func badBodiesAreRefusedAndOneBadPointInABatchLeavesTheRest() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      try await PhoneFixtures.trackSig101(
        server, worker: "phone", devices: [Self.osmand, Self.owntracks, Self.overland])
      let t0 = PhoneFixtures.nextSecond()
      let p = PhoneFixtures.nearSig101(north: -400)
      let tst = Int(t0.timeIntervalSince1970)
      let headers = [
        "X-Limit-U": "jane", "X-Limit-D": "phone", "Authorization": Self.basic,
        "Content-Type": "application/json",
      ]
      for body in [
        #"{"_type":"location","lat":59.6,"lon":17"#,  // truncated
        #"{"_type":"location","lat":"59.6","lon":17.7,"tst":\#(tst)}"#,  // wrong type
        #"{"_type":"location","lat":NaN,"lon":17.7,"tst":\#(tst)}"#,
        #"{"_type":"location","lat":91,"lon":17.7,"tst":\#(tst)}"#,
        #"["_type","location"]"#,
      ] {
        ServiceCheck.error(
          try await server.request(
            "POST", "/v1/ingest/owntracks", headers: headers, body: Array(body.utf8)), 400)
      }
      for query in ["lat=91&lon=17.7", "lat=nan&lon=17.7", "lat=59.6", "location=59.6"] {
        ServiceCheck.error(
          try await server.request(
            "GET", "/v1/ingest/osmand?id=123456&secret=s3cret&timestamp=\(tst)&\(query)"), 400)
      }
      ServiceCheck.error(
        try await server.request(
          "POST", "/v1/ingest/overland", headers: ["Authorization": "Bearer 0v3rland"],
          body: Array(#"{"locations":[{"type":"Feature""#.utf8)), 400)
      // One bad point (latitude 91) in the middle of a batch: counted, the rest kept.
      var batch = PhoneFixtures.overland(
        (0..<5).map { (t0 + Double($0), p.latitude + Double($0) * 0.0002, p.longitude) },
        deviceID: "iphone")
      batch = batch.replacingOccurrences(
        of: "\(p.longitude),\(p.latitude + 2 * 0.0002)", with: "\(p.longitude),91")
      let kept = try await server.request(
        "POST", "/v1/ingest/overland", headers: ["Authorization": "Bearer 0v3rland"],
        body: Array(batch.utf8))
      #expect(kept.status == 200 && kept.json?["result"] as? String == "ok", "\(kept.text)")
      // Fix lines: a bad line (wrong type) in the middle is counted and skipped.
      let lines = [
        #"{"time":"\#(PhoneFixtures.rfc3339(t0 + 10))","lat":\#(p.latitude + 0.002),"lon":\#(p.longitude)}"#,
        #"{"time":"\#(PhoneFixtures.rfc3339(t0 + 11))","lat":"x","lon":\#(p.longitude)}"#,
        #"{"time":"\#(PhoneFixtures.rfc3339(t0 + 12))","lat":\#(p.latitude + 0.0022),"lon":\#(p.longitude)}"#,
      ].joined(separator: "\n")
      let fixes = try await server.send(
        "POST", "/v1/ingest/fixes?worker=phone", contentType: nil, lines)
      #expect(
        fixes.json?["accepted"] as? Int == 2 && fixes.json?["rejected"] as? Int == 1,
        "\(fixes.text)")

      let track = try PhoneFixtures.storedTrack(sandbox.databasePath)
      #expect(
        track.map(\.time) == [t0, t0 + 1, t0 + 3, t0 + 4, t0 + 10, t0 + 12], "\(track.map(\.time))")
      #expect(track.allSatisfy { abs($0.coordinate.latitude) <= 90 })
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.positions(metrics, "overland", "rejected") == 1)
      #expect(PhoneFixtures.positions(metrics, "native", "rejected") == 1)
      #expect(PhoneFixtures.refused(metrics, "owntracks", "malformed") == 5)
      #expect(PhoneFixtures.refused(metrics, "osmand", "malformed") == 4)
    }
  }

  @Test func aWalkInOverlandBatchesWithOneSentTwiceIsStoredOnceAndArrivesAtItsFixTime()
    async throws
  {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      try await PhoneFixtures.trackSig101(server, worker: "walker", devices: [Self.overland])
      let t0 = PhoneFixtures.nextSecond()
      // 200 fixes 12 m apart every 2 s (each delivered past the 10 m filter), from 2,388 m
      // south of sig-101 to its centre: the first inside its 40 m is number 196 (36 m).
      let walk = (0..<200).map { index -> (time: Date, latitude: Double, longitude: Double) in
        let point = PhoneFixtures.nearSig101(north: -2388 + Double(index) * 12)
        return (t0 + Double(index * 2), point.latitude, point.longitude)
      }
      let batches = stride(from: 0, to: walk.count, by: 50).map {
        PhoneFixtures.overland(Array(walk[$0..<$0 + 50]), deviceID: "iphone")
      }
      for (index, batch) in (batches[0...1] + [batches[1]] + batches[2...]).enumerated() {
        let reply = try await server.request(
          "POST", "/v1/ingest/overland",
          headers: ["Content-Type": "application/json", "Authorization": "Bearer 0v3rland"],
          body: Array(batch.utf8))
        #expect(reply.json?["result"] as? String == "ok", "batch \(index): \(reply.text)")
      }
      let track = try PhoneFixtures.storedTrack(sandbox.databasePath)
      #expect(track.map(\.time) == walk.map(\.time), "\(track.count) fixes stored")
      let events = try PhoneFixtures.storedEvents(sandbox.databasePath)
      let arrivals = events.filter {
        if case .state(_, .arrived) = $0.kind { return true }
        return false
      }
      #expect(arrivals.map(\.time) == [walk[196].time], "\(arrivals)")
      let enters = events.filter {
        if case .enter("sig-101", _, _) = $0.kind { return true }
        return false
      }
      #expect(enters.map(\.time) == [walk[196].time])
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.positions(metrics, "overland", "accepted") == 200)
      #expect(
        (PhoneFixtures.positions(metrics, "overland", "duplicates") ?? 0)
          + (PhoneFixtures.positions(metrics, "overland", "out_of_order") ?? 0) == 50)
    }
  }

  @Test func hoursOfBufferedFixesAfterLiveOnesMoveNeitherPositionNorEvents() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      try await PhoneFixtures.trackSig101(server, worker: "walker", devices: [Self.overland])
      let start = PhoneFixtures.nextSecond()
      let live = start + 3 * 3600
      // Live fixes resumed 3 h after the start, 500 m south of the mission.
      let liveBatch = (0..<5).map { index -> (time: Date, latitude: Double, longitude: Double) in
        let point = PhoneFixtures.nearSig101(north: -500 + Double(index * 12))
        return (live + Double(index * 5), point.latitude, point.longitude)
      }
      // Then two hours of buffered fixes, one every 10 s, walking through the fence.
      let buffered = (0..<720).map { index -> (time: Date, latitude: Double, longitude: Double) in
        let point = PhoneFixtures.nearSig101(north: -1000 + Double(index) * 3)
        return (start + 60 + Double(index * 10), point.latitude, point.longitude)
      }
      for points in [liveBatch, buffered] {
        let reply = try await server.request(
          "POST", "/v1/ingest/overland", headers: ["Authorization": "Bearer 0v3rland"],
          body: Array(PhoneFixtures.overland(points, deviceID: "iphone").utf8))
        #expect(reply.json?["result"] as? String == "ok", "\(reply.text)")
      }
      let track = try PhoneFixtures.storedTrack(sandbox.databasePath)
      #expect(track.map(\.time) == liveBatch.map(\.time))
      let events = try PhoneFixtures.storedEvents(sandbox.databasePath)
      #expect(!events.contains { $0.fenceID != nil }, "no fence event from the late fixes")
      let worker = try await server.request("GET", "/v1/missions/sig-101")
      #expect(worker.json?["fence"] as? String == "outside", "\(worker.text)")
      #expect((worker.json?["mission"] as? [String: Any])?["state"] as? String == "active")
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.positions(metrics, "overland", "accepted") == 5)
      #expect(PhoneFixtures.positions(metrics, "overland", "out_of_order") == 720)
    }
  }

  /// Posts one OwnTracks location of `jane/phone`, taken at `time` (whole seconds), `north`
  /// metres from sig-101; returns the `monitoring` mode the reply's `cmd` asks for.
  static func postOwnTracks(_ server: InProcessService, _ time: Date, north: Double)
    async throws -> Int?
  {
    let p = PhoneFixtures.nearSig101(north: north)
    let body =
      #"{"_type":"location","lat":\#(p.latitude),"lon":\#(p.longitude),"tst":\#(Int(time.timeIntervalSince1970))}"#
    let reply = try await server.request(
      "POST", "/v1/ingest/owntracks",
      headers: ["X-Limit-U": "jane", "X-Limit-D": "phone", "Authorization": Self.basic],
      body: Array(body.utf8))
    #expect(reply.status == 200, "\(reply.text)")
    let object = try JSONSerialization.jsonObject(with: Data(reply.body)) as? [[String: Any]]
    return (object?.first?["configuration"] as? [String: Any])?["monitoring"] as? Int
  }

  @Test func positionsBeforeStartAndAfterSubmitAreAcknowledgedAndNeverStored() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      try server.database.putWorker(Worker(id: "phone", devices: [Self.owntracks]))
      let before = PhoneFixtures.nextSecond()
      // No mission: acknowledged, and the phone is asked for significant changes only.
      #expect(try await Self.postOwnTracks(server, before, north: -900) == 1)
      try await Task.sleep(for: .milliseconds(1100))
      let accepted = try await server.send(
        "POST", "/v1/missions/sig-101/accept", contentType: "application/json",
        #"{"worker_id":"phone"}"#)
      #expect(accepted.status == 200)
      #expect(try await server.request("POST", "/v1/missions/sig-101/start").status == 200)
      // Buffered on the phone from before the start, sent now: untracked too.
      #expect(try await Self.postOwnTracks(server, before + 0.5, north: -800) == 2)
      let during = PhoneFixtures.nextSecond() + 1
      _ = try await Self.postOwnTracks(server, during, north: -700)
      #expect(try await server.request("POST", "/v1/missions/sig-101/submit").status == 200)
      #expect(try await Self.postOwnTracks(server, during + 5, north: -600) == 1)

      let track = try PhoneFixtures.storedTrack(sandbox.databasePath)
      #expect(track.map(\.time) == [during], "\(track.map(\.time))")
      let reader = try MissionDatabase(
        path: sandbox.databasePath, configuration: StoreConfiguration(readOnly: true))
      let fixEvents = try reader.events(ofWorker: "phone").filter { $0.type == "fix" }
      #expect(fixEvents.map(\.time) == [during])
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.positions(metrics, "owntracks", "untracked") == 3)
      #expect(PhoneFixtures.positions(metrics, "owntracks", "accepted") == 1)
    }
  }
  /// The start's time is the store's: for a start made by another process, and after a
  /// restart, a position buffered on the phone from before the start is still untracked.
  @Test func aStartMadeElsewhereOrBeforeARestartStillKeepsBufferedFixesOut() async throws {
    let sandbox = try ServiceSandbox()
    let writer = try MissionDatabase(path: sandbox.databasePath)
    try writer.putWorker(Worker(id: "phone", devices: [Self.owntracks]))
    try writer.apply(.accept, toMission: "sig-101", worker: "phone")
    let before = PhoneFixtures.nextSecond()
    let during = PhoneFixtures.nextSecond() + 2
    try await InProcessService.run(sandbox) { server in
      // Started by another connection while the service runs: it tracks it from the poll.
      try writer.apply(.start, toMission: "sig-101", at: before + 1)
      let deadline = Date().addingTimeInterval(20)
      var monitoring = try await Self.postOwnTracks(server, before, north: -900)
      while monitoring != 2, Date() < deadline {
        try await Task.sleep(for: .milliseconds(50))
        monitoring = try await Self.postOwnTracks(server, before, north: -900)
      }
      #expect(monitoring == 2, "the service never tracked the mission started elsewhere")
      _ = try await Self.postOwnTracks(server, during, north: -700)
    }
    // After a restart: an older buffered position is untracked; a live one is kept.
    try await InProcessService.run(sandbox) { server in
      #expect(try await Self.postOwnTracks(server, before + 0.5, north: -800) == 2)
      _ = try await Self.postOwnTracks(server, during + 3, north: -650)
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.positions(metrics, "owntracks", "untracked") == 1)
    }
    let track = try PhoneFixtures.storedTrack(sandbox.databasePath)
    #expect(track.map(\.time) == [during, during + 3], "\(track.map(\.time))")
  }
  /// One tracker per worker, phones too: while another process holds the worker's tracking
  /// lease its positions are refused with 503 naming that process (the phone sends them
  /// again); once the service feeds it, the service holds the lease, until tracking ends.
  @Test func aPhoneFedWorkerIsTrackedByOneProcessAtATime() async throws {
    let sandbox = try ServiceSandbox()
    try await InProcessService.run(sandbox) { server in
      try await PhoneFixtures.trackSig101(server, worker: "phone", devices: [Self.osmand])
      let t0 = PhoneFixtures.nextSecond()
      func send(_ seconds: Double, north: Double) async throws -> RawHTTP.Response {
        let p = PhoneFixtures.nearSig101(north: north)
        let line =
          #"{"time":"\#(PhoneFixtures.rfc3339(t0 + seconds))","lat":\#(p.latitude),"lon":\#(p.longitude)}"#
        return try await server.send(
          "POST", "/v1/ingest/fixes?worker=phone", contentType: nil, line)
      }
      func claim() throws -> TrackingLease {
        try server.database.claimTracking(holder: "missiontrack replay", worker: "phone")
      }
      let replay = try claim()
      let refused = try await send(0, north: -600)
      #expect(refused.status == 503, "\(refused.text)")
      #expect(refused.text.contains("pid \(getpid()) (missiontrack replay)"), "\(refused.text)")
      replay.release()
      let accepted = try await send(1, north: -580)
      #expect(accepted.status == 200 && accepted.json?["accepted"] as? Int == 1)
      let held = #expect(throws: StoreError.self) { _ = try claim() }
      #expect(held?.description.contains("(missiontrack serve)") == true)
      #expect(try await server.request("POST", "/v1/missions/sig-101/submit").status == 200)
      let deadline = Date().addingTimeInterval(10)
      var released: TrackingLease?
      while released == nil, Date() < deadline {
        released = try? claim()
        if released == nil { try await Task.sleep(for: .milliseconds(20)) }
      }
      #expect(released != nil, "the service kept the lease after the mission was submitted")
      let metrics = try await server.request("GET", "/metrics").text
      #expect(PhoneFixtures.refused(metrics, "native", "tracked_elsewhere") == 1, "\(metrics)")
      #expect(try PhoneFixtures.storedTrack(sandbox.databasePath).map(\.time) == [t0 + 1])
    }
  }
}
