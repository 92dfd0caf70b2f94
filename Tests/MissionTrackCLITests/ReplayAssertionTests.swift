import Foundation
import MissionProximity
import MissionStore
import MissionTracking
import Testing
import TextRules

@testable import MissionTrackCLI

/// `replay` as a test suite's assertion: `--expect-arrival [--within]` and faults on demand.
@Suite struct ReplayAssertionTests {
  func replay(_ extra: [String]) async throws -> (status: Int32, out: String, err: String) {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    return await box.run(["replay", CLISandbox.walkGPX, "--mission", "sig-101"] + extra)
  }

  @Test func anArrivalInTimePasses() async throws {
    let run = try await replay(["--expect-arrival", "--within", "13m"])
    #expect(run.status == 0, "\(run.err)")
  }

  @Test func aLateOrMissingArrivalFailsWithOneLine() async throws {
    let late = try await replay(["--expect-arrival", "--within", "12m"])
    #expect(late.status == 1)
    let line = try #require(late.err.split(separator: "\n").last)
    #expect(
      line
        == "replay: expected arrival: mission sig-101 arrived 12m52s after the start, later than 12m00s"
    )
    // A walk whose every fix is dropped never arrives.
    let never = try await replay(["--expect-arrival", "--dropout", "1"])
    #expect(never.status == 1)
    #expect(never.err.hasSuffix("replay: expected arrival: mission sig-101 did not arrive\n"))
    // Without --expect-arrival the same run succeeds.
    #expect(try await replay(["--dropout", "1"]).status == 0)
  }

  @Test func aNoisyWalkStillArrivesExactlyOnceAndTheSameSeedGivesTheSameEvents() async throws {
    let first = try await replay(["--noise-m", "5", "--seed", "7", "--expect-arrival"])
    #expect(first.status == 0, "\(first.err)")
    let lines = CLISandbox.jsonLines(first.out)
    let arrivals = lines.filter {
      $0["type"] as? String == "state" && $0["to"] as? String == "arrived"
    }
    #expect(arrivals.count == 1)
    let again = try await replay(["--noise-m", "5", "--seed", "7"])
    #expect(again.out == first.out)
    let other = try await replay(["--noise-m", "5", "--seed", "8"])
    #expect(other.out != first.out)
  }

  @Test(arguments: [
    ["--within", "5m"], ["--expect-arrival", "--within", "soon"],
    ["--expect-arrival", "--within", "-5s"], ["--expect-arrival", "--within", "5m1h"],
    ["--dropout", "2"], ["--noise-m", "-1"], ["--outage", "x"], ["--dropout", "0x1p-1"],
    ["--noise-m", "0x10"], ["--duplicate", "nan"],
  ])
  func badValuesAreUsageErrors(_ extra: [String]) async throws {
    let run = try await replay(extra)
    #expect(run.status == 64, "\(extra)")
    #expect(run.err.split(separator: "\n").count == 1)
    #expect(run.out.isEmpty)
  }

  /// A planned route (`<rte>`, no times) from 500 m south of sig-101 to it, a point every
  /// 10 m, and a waypoint far away.
  static func route(in box: CLISandbox, waypointTime: String? = nil) throws -> String {
    let shop = try Coordinate(latitude: 59.61708, longitude: 17.72185)
    let time = waypointTime.map { "<time>\($0)</time>" } ?? ""
    var text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <gpx version="1.1" creator="tests" xmlns="http://www.topografix.com/GPX/1/1">
      <wpt lat="59.70000" lon="17.90000">\(time)<name>far</name></wpt>
      <rte>

      """
    for step in 0...50 {
      let point = try shop.destination(bearingDegrees: 180, distanceMeters: Double(500 - 10 * step))
      text += "<rtept lat=\"\(point.latitude)\" lon=\"\(point.longitude)\"/>\n"
    }
    text += "</rte>\n</gpx>\n"
    let path = box.path("route.gpx")
    try text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }

  @Test func aPlannedRouteIsWalkedAtTheGivenSpeedAndArrivesOnTime() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    let route = try Self.route(in: box)
    // Without a speed, one line that says what is missing and which flag helps.
    let untimed = await box.run(["replay", route, "--mission", "sig-101"])
    #expect(untimed.status == 1)
    #expect(untimed.err.contains("points have no time"))
    #expect(untimed.err.contains("--speed-mps"))
    #expect(untimed.err.split(separator: "\n").count == 1)
    let walked = await box.run([
      "replay", route, "--mission", "sig-101", "--speed-mps", "1.4", "--start-at",
      "2026-05-04T10:00:00Z", "--expect-arrival",
    ])
    #expect(walked.status == 0, "\(walked.err)")
    let arrival = try #require(
      CLISandbox.jsonLines(walked.out).first {
        $0["type"] as? String == "state" && $0["to"] as? String == "arrived"
      })
    let time = try #require((arrival["time"] as? String).flatMap { UTCTime.parse($0)?.date })
    // The first point inside the 40 m fence is 460 m along the route: 328.6 s at 1.4 m/s.
    let expected = Date(timeIntervalSince1970: 1_777_888_800 + 460 / 1.4)
    #expect(abs(time.timeIntervalSince(expected)) <= 1)
    // --waypoints walks the far waypoint first (about 14 km from the route's start), so the
    // route, and the arrival, come that many seconds at 1.4 m/s later.
    let fresh = try CLISandbox()
    try await fresh.acceptedDemo()
    let viaWaypoint = await fresh.run([
      "replay", route, "--mission", "sig-101", "--speed-mps", "1.4", "--waypoints", "--start-at",
      "2026-05-04T10:00:00Z",
    ])
    #expect(viaWaypoint.status == 0, "\(viaWaypoint.err)")
    let later = try #require(
      CLISandbox.jsonLines(viaWaypoint.out).first {
        $0["type"] as? String == "state" && $0["to"] as? String == "arrived"
      })
    let laterTime = try #require((later["time"] as? String).flatMap { UTCTime.parse($0)?.date })
    let far = try Coordinate(latitude: 59.70000, longitude: 17.90000)
    let routeStart = try Coordinate(latitude: 59.61708, longitude: 17.72185)
      .destination(bearingDegrees: 180, distanceMeters: 500)
    let detour = far.distance(to: routeStart) / 1.4
    #expect(abs(laterTime.timeIntervalSince(expected) - detour) <= 1)
    #expect(await box.run(["replay", route, "--waypoints"]).status == 64)
  }

  @Test func aTimedWaypointIsNotWalkedWithoutTheWaypointsFlag() async throws {
    let box = try CLISandbox()
    try await box.acceptedDemo()
    // The far waypoint has a time of its own: still a waypoint, not a point of the walk.
    let route = try Self.route(in: box, waypointTime: "2026-05-04T09:00:00Z")
    let walked = await box.run([
      "replay", route, "--mission", "sig-101", "--speed-mps", "1.4", "--start-at",
      "2026-05-04T10:00:00Z", "--expect-arrival",
    ])
    #expect(walked.status == 0, "\(walked.err)")
    let fixes = CLISandbox.jsonLines(walked.out).filter { $0["type"] as? String == "fix" }
    #expect(!fixes.contains { ($0["lat"] as? Double).map { $0 > 59.69 } ?? false })
    let arrival = try #require(
      CLISandbox.jsonLines(walked.out).first {
        $0["type"] as? String == "state" && $0["to"] as? String == "arrived"
      })
    let time = try #require((arrival["time"] as? String).flatMap { UTCTime.parse($0)?.date })
    // As for the route alone: 460 m along it at 1.4 m/s.
    #expect(
      abs(time.timeIntervalSince(Date(timeIntervalSince1970: 1_777_888_800 + 460 / 1.4))) <= 1)
  }

  @Test func durationsReadAsPeopleWriteThem() {
    #expect(DurationText.seconds("90") == 90)
    #expect(DurationText.seconds("90s") == 90)
    #expect(DurationText.seconds("15m") == 900)
    #expect(DurationText.seconds("1h30m") == 5400)
    #expect(DurationText.seconds("1.5h") == 5400)
    #expect(DurationText.seconds("1h2m3s") == 3723)
    for bad in ["", "m", "5x", "5m1h", "1h1h", "-3", "inf", "1e400", "5 m"] {
      #expect(DurationText.seconds(bad) == nil, "\(bad)")
    }
    #expect(DurationText.format(772) == "12m52s")
    #expect(DurationText.format(45) == "45s")
    #expect(DurationText.format(3720) == "1h02m00s")
  }
}
