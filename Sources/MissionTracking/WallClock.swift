import Foundation

/// The system's wall clock.
public struct WallClock: MissionClock {
  /// Creates the wall clock.
  public init() {}

  /// `Date()`.
  public func now() -> Date { Date() }
}
