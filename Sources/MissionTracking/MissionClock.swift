import Foundation

/// Where the engine gets the time it stamps on the transitions it performs.
///
/// Live, that is the wall clock (`WallClock`). A replay uses a `ManualClock` set to the
/// trace's first fix time, so that replaying the same trace twice gives the same output.
/// Fix, fence and source events never ask the clock: they carry fix time.
public protocol MissionClock: Sendable {
  /// The current time, UTC.
  func now() -> Date
}
