import Foundation
import MissionTracking
import Testing

@testable import LiveSources

@Suite struct LiveFixDeliveryTests {
  @Test func fixesNotNewerThanTheLastDeliveredAreDropped() {
    var delivery = LiveFixDelivery(outageSubject: "gpsd")
    #expect(delivery.admit(testFix(10, sigtuna)) == .deliver(gapDetail: nil))
    #expect(delivery.admit(testFix(10, sigtuna)) == .drop)
    #expect(delivery.admit(testFix(9, sigtuna)) == .drop)
    #expect(delivery.admit(testFix(11, sigtuna)) == .deliver(gapDetail: nil))
    #expect(delivery.lastDelivered == testTime(11))
  }

  @Test func theFirstFixAfterAnOutageNamesTheGapInFixTimeAndWallTime() {
    var delivery = LiveFixDelivery(outageSubject: "/dev/ttyUSB0")
    #expect(delivery.admit(testFix(1, sigtuna)) == .deliver(gapDetail: nil))
    let lostAt = ContinuousClock.now
    delivery.lost(at: lostAt)
    delivery.connected()
    #expect(
      delivery.admit(testFix(4.25, sigtuna), now: lostAt + .milliseconds(2_500))
        == .deliver(
          gapDetail: "no fixes for 3.25 s of fix time, /dev/ttyUSB0 unavailable for 2.5 s"))
    // The gap is reported once.
    #expect(delivery.admit(testFix(5, sigtuna)) == .deliver(gapDetail: nil))
  }

  @Test func aReconnectionWithoutALossOmitsTheWallTime() {
    var delivery = LiveFixDelivery(outageSubject: "gpsd")
    _ = delivery.admit(testFix(1, sigtuna))
    delivery.connected()
    #expect(delivery.admit(testFix(1, sigtuna)) == .drop)  // a stale fix keeps the gap open
    #expect(
      delivery.admit(testFix(31, sigtuna)) == .deliver(gapDetail: "no fixes for 30 s of fix time"))
  }

  @Test func aFirstConnectionBeforeAnyFixIsNoGap() {
    var delivery = LiveFixDelivery(outageSubject: "gpsd")
    delivery.lost()
    delivery.connected()
    #expect(delivery.admit(testFix(1, sigtuna)) == .deliver(gapDetail: nil))
  }

  @Test func aDeliveredFixOrAConnectionEndsTheNoFixEpisode() {
    var delivery = LiveFixDelivery(outageSubject: "gpsd")
    delivery.inNoFixEpisode = true
    _ = delivery.admit(testFix(1, sigtuna))
    #expect(!delivery.inNoFixEpisode)
    delivery.inNoFixEpisode = true
    delivery.connected()
    #expect(!delivery.inNoFixEpisode)
  }

  @Test func secondsAreFormattedWithAtMostThreeDecimals() {
    #expect(LiveFixDelivery.format(0.05) == "0.05")
    #expect(LiveFixDelivery.format(30) == "30")
    #expect(LiveFixDelivery.format(1.23456) == "1.235")
    #expect(LiveFixDelivery.format(.milliseconds(250)) == "0.25")
    #expect(LiveFixDelivery.format(.seconds(0)) == "0")
  }
}

/// Seconds after 2026-05-04T10:00:00Z.
private func testTime(_ seconds: Double) -> Date {
  Date(timeIntervalSince1970: 1_777_888_800 + seconds)
}

/// A fix at `coordinate`, `seconds` after the test epoch.
private func testFix(_ seconds: Double, _ coordinate: Coordinate) -> Fix {
  Fix(time: testTime(seconds), coordinate: coordinate, source: "test")
}

private let sigtuna = Coordinate(uncheckedLatitude: 59.617, longitude: 17.724)
