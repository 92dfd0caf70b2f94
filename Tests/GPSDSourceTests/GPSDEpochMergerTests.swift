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
