import Foundation
import Testing

@testable import GPSDSource
@testable import MissionTracking

struct GPSDEpochMergerTests {
  private func fix(_ second: Double, lat: Double = 10, alt: Double? = nil, speed: Double? = nil)
    -> Fix
  {
    Fix(
      time: Date(timeIntervalSince1970: 1_700_000_000 + second),
      coordinate: Coordinate(uncheckedLatitude: lat, longitude: 20), source: "gpsd",
      altitudeMeters: alt, speedMetersPerSecond: speed)
  }

  @Test func reportsOfOneEpochBecomeOneFixCarryingEverything() {
    var merger = GPSDEpochMerger()
    #expect(merger.add(fix(0, lat: 10, speed: 3)) == (nil, false))
    let second = merger.add(fix(0, lat: 10.5, alt: 40))
    #expect(second.released == nil)
    #expect(second.merged)
    let released = merger.add(fix(1)).released
    #expect(released?.coordinate.latitude == 10.5)  // the later report's position
    #expect(released?.altitudeMeters == 40)
    #expect(released?.speedMetersPerSecond == 3)  // kept from the earlier report
    #expect(merger.flush()?.time == fix(1).time)
    #expect(merger.flush() == nil)
  }

  @Test func aNewEpochReleasesThePreviousOneEvenWhenTimeGoesBack() {
    var merger = GPSDEpochMerger()
    _ = merger.add(fix(5))
    #expect(merger.add(fix(4)).released?.time == fix(5).time)
    #expect(merger.pending?.time == fix(4).time)
  }
}

struct GPSDRetryPolicyTests {
  @Test func delaysGrowExponentiallyUpToTheCap() throws {
    let policy = try GPSDRetryPolicy(
      initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 3)
    let delays = (1...5).map { policy.delay(beforeRetry: $0) }
    #expect(
      delays == [
        .milliseconds(100), .milliseconds(300), .milliseconds(900), .seconds(1), .seconds(1),
      ])
    #expect(policy.delay(beforeRetry: 10_000) == .seconds(1))  // no overflow
  }

  @Test func theStandardPolicyRetriesForEver() {
    #expect(GPSDRetryPolicy.standard.maximumAttempts == nil)
    #expect(GPSDRetryPolicy.standard.delay(beforeRetry: 1) == .milliseconds(500))
    #expect(GPSDRetryPolicy.standard.delay(beforeRetry: 100) == .seconds(30))
  }

  @Test func badPoliciesAreRejected() {
    #expect(throws: GPSDError.self) { try GPSDRetryPolicy(initialDelay: .seconds(-1)) }
    #expect(throws: GPSDError.self) {
      try GPSDRetryPolicy(initialDelay: .seconds(2), maximumDelay: .seconds(1))
    }
    #expect(throws: GPSDError.self) { try GPSDRetryPolicy(multiplier: 0.5) }
    #expect(throws: GPSDError.self) { try GPSDRetryPolicy(maximumAttempts: 0) }
  }
}

struct GPSDEndpointTests {
  @Test(arguments: [
    ("localhost:2947", "localhost", 2947),
    ("gps.local", "gps.local", 2947),
    (":4000", "localhost", 4000),
    ("127.0.0.1:39000", "127.0.0.1", 39_000),
    ("[::1]:2948", "::1", 2948),
    ("[fe80::1]", "fe80::1", 2947),
  ])
  func endpointsAreParsed(text: String, host: String, port: Int) throws {
    let source = try GPSDFixSource(endpoint: text)
    #expect(source.host == host)
    #expect(source.port == port)
  }

  @Test(arguments: ["host:", "host:0", "host:70000", "host:x", "::1:2947", "[::1", "[::1]x"])
  func badEndpointsAreRejected(text: String) {
    #expect(throws: GPSDError.self) { try GPSDFixSource(endpoint: text) }
  }

  @Test func endpointTextBracketsIPv6() {
    #expect(GPSDFixSource.endpointText(host: "::1", port: 2947) == "[::1]:2947")
    #expect(GPSDFixSource.endpointText(host: "localhost", port: 2947) == "localhost:2947")
  }

  @Test func errorsNameTheSettingAndValue() {
    #expect(throws: GPSDError.self) { try GPSDFixSource(host: "", port: 2947) }
    do {
      _ = try GPSDFixSource(port: 0)
      Issue.record("port 0 accepted")
    } catch {
      #expect(error.description == "invalid gpsd port '0': must be in 1...65535")
    }
  }
}
