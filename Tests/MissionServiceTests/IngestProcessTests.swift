import Foundation
import MissionStore
import MissionTracking
import ServiceTestSupport
import Testing

/// `/v1/ingest/…` end to end: the built `missiontrack serve`, devices registered with
/// `missiontrack workers add`, phones' requests over loopback HTTP, the database read after.
@Suite(.enabled(if: ServeProcess.isAvailable, "needs the built missiontrack"))
struct IngestProcessTests {
  /// A compact Overland batch of `count` points 12 m apart, 0.5 s apart (so each is
  /// delivered past the 10 m filter and none is more than a day ahead), from `start`.
  static func longBatch(
    count: Int, start: Date, from origin: (latitude: Double, longitude: Double)
  ) -> [UInt8] {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    var body = Array(#"{"locations":["#.utf8)
    body.reserveCapacity(count * 140)
    for index in 0..<count {
      if index > 0 { body.append(UInt8(ascii: ",")) }
      let latitude = origin.latitude + Double(index) * 12 / PhoneFixtures.metersPerDegree
      let time = formatter.string(from: start + Double(index) * 0.5)
      // No device id in the points: Overland's device is then the one whose token it
      // presents (and the 100,000 points fit in 16 MiB).
      body += Array(
        (#"{"type":"Feature","geometry":{"type":"Point","coordinates":["#
          + String(format: "%.6f,%.6f", origin.longitude, latitude)
          + #"]},"properties":{"timestamp":""# + time + #""}}"#).utf8)
    }
    return body + Array("]}".utf8)
  }

  /// `serve` on `sandbox` with worker `phone` registered with `devices` (each with secret
  /// `s3cret`, by `missiontrack workers add`) and tracking sig-101, started through the API.
  static func servePhoneTracking(_ sandbox: ServiceSandbox, devices: [String]) throws
    -> ServeProcess
  {
    let secret = sandbox.path("secret")
    try "s3cret\n".write(toFile: secret, atomically: true, encoding: .utf8)
    let added = try sandbox.cli(
      ["workers", "add", "phone"] + devices.flatMap { ["--device", $0, "--secret-file", secret] })
    #expect(added.status == 0, "\(added.err)")
    #expect(try sandbox.cli(["missions", "accept", "sig-101", "--worker", "phone"]).status == 0)
    let server = try sandbox.serve()
    #expect(
      try ServiceCheck.get(server, "/v1/missions/sig-101/start", method: "POST").status == 200)
    return server
  }

  @Test func phonesFeedTheirWorkersOverHTTPAndHostileBodiesAreRefused() throws {
    let sandbox = try ServiceSandbox()
    let server = try Self.servePhoneTracking(
      sandbox, devices: ["osmand:123456", "overland:iphone"])
    defer { server.stop() }
    let t0 = PhoneFixtures.nextSecond()
    let p = PhoneFixtures.nearSig101(north: -1000)

    // OsmAnd's GET on a kept-alive connection, twice: empty 200s.
    let connection = try RawHTTP(port: server.port)
    for step in 0..<2 {
      let point = PhoneFixtures.nearSig101(north: -1000 + Double(step) * 15)
      connection.send(
        "GET /v1/ingest/osmand?id=123456&secret=s3cret&timestamp=\(Int(t0.timeIntervalSince1970) + step)"
          + "&lat=\(point.latitude)&lon=\(point.longitude) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
      let answer = try #require(connection.readResponse(within: 10))
      #expect(
        answer.status == 200 && answer.body.isEmpty && answer.headers["content-length"] == "0")
    }
    // A wrong secret over the wire: 401, our JSON error.
    ServiceCheck.error(
      try ServiceCheck.get(
        server,
        "/v1/ingest/osmand?id=123456&secret=nope&timestamp=\(Int(t0.timeIntervalSince1970) + 2)"
          + "&lat=\(p.latitude)&lon=\(p.longitude)"), 401)
    // A header with a control character (0x01) in a value: refused, nothing stored.
    let control = try RawHTTP.request(
      port: server.port, "POST", "/v1/ingest/overland",
      headers: ["Authorization": "Bearer s3\u{1}cret"],
      body: Array(
        PhoneFixtures.overland([(t0 + 3, p.latitude, p.longitude)], deviceID: "iphone").utf8))
    #expect(control.status >= 400 && control.status < 500, "\(control.status)")
    // 20 MB: 413 from the headers, before the body.
    let big = try RawHTTP(port: server.port, timeout: 5)
    big.send(
      "POST /v1/ingest/overland HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer s3cret\r\n"
        + "Content-Length: \(20_000_000)\r\n\r\n")
    ServiceCheck.error(try #require(RawHTTP.parse(big.readAvailable(waiting: 3))), 413)

    // 100,000 points in one Overland batch (13 MB): every one stored.
    let batchStart = t0 + 10
    let batch = Self.longBatch(
      count: 100_000, start: batchStart, from: PhoneFixtures.nearSig101(north: -960))
    #expect(batch.count < 16 << 20)
    let reply = try RawHTTP.request(
      port: server.port, "POST", "/v1/ingest/overland",
      headers: ["Authorization": "Bearer s3cret", "Content-Type": "application/json"],
      body: batch, timeout: 120)
    #expect(reply.status == 200 && reply.json?["result"] as? String == "ok", "\(reply.text)")
    // Durable when answered: read from another connection while serve still runs.
    let track = try PhoneFixtures.storedTrack(sandbox.databasePath)
    #expect(track.count == 100_002, "\(track.count)")
    #expect(track.last?.time == batchStart + 99_999 * 0.5)
    let metrics = try ServiceCheck.get(server, "/metrics").text
    #expect(PhoneFixtures.positions(metrics, "overland", "accepted") == 100_000)
    #expect(PhoneFixtures.positions(metrics, "osmand", "accepted") == 2)
    #expect(PhoneFixtures.refused(metrics, "osmand", "wrong_secret") == 1)
  }

  /// The server hands the decoder every query item in the order sent, so a name given twice
  /// is read as Traccar reads it (the last wins), and a query of many items is served.
  @Test func aRepeatedQueryItemReachesTheDecoderInOrder() throws {
    let sandbox = try ServiceSandbox()
    let server = try Self.servePhoneTracking(sandbox, devices: ["osmand:123456"])
    defer { server.stop() }
    let point = PhoneFixtures.nearSig101(north: -1000)
    let time = Int(PhoneFixtures.nextSecond().timeIntervalSince1970)
    // 300 items the decoder leaves (about 2.5 KB), then the report with `lat` twice.
    // (libmicrohttpd keeps each item in the connection's 32 KiB: with some 500 it closes
    // the connection unanswered, as it did with some 900 in 64 KiB.)
    let filler = (0..<300).map { "x\($0)=1" }.joined(separator: "&")
    let answer = try ServiceCheck.get(
      server,
      "/v1/ingest/osmand?\(filler)&id=123456&secret=s3cret&timestamp=\(time)&lat=1.5"
        + "&lon=\(point.longitude)&lat=\(point.latitude)")
    #expect(answer.status == 200, "\(answer.text)")
    // Committed within the service's group commit (20 ms).
    var track: [Fix] = []
    for _ in 0..<100 where track.isEmpty {
      track = try PhoneFixtures.storedTrack(sandbox.databasePath)
      if track.isEmpty { Thread.sleep(forTimeInterval: 0.05) }
    }
    #expect(track.count == 1)
    #expect(track.first.map { abs($0.coordinate.latitude - point.latitude) < 1e-9 } == true)
  }
}
