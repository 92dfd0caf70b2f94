import Foundation

/// How a replay gives times to GPX points that have none (a planned route, a saved track):
/// along the path at a walking speed, the way a simulator walks a planned route.
public struct UntimedReplay: Sendable, Hashable {
  /// The speed along the path, metres per second (> 0).
  public var speedMetersPerSecond: Double
  /// The time of the first point when no timed point comes before it.
  public var start: Date
  /// Whether `<wpt>` points are walked too, in document order (otherwise left out).
  public var includesWaypoints: Bool

  /// Creates the timing.
  public init(speedMetersPerSecond: Double, start: Date, includesWaypoints: Bool = false) {
    self.speedMetersPerSecond = speedMetersPerSecond
    self.start = start
    self.includesWaypoints = includesWaypoints
  }

  /// The epoch untimed replays start at when no start is given: 2000-01-01T00:00:00Z, fixed
  /// so that the same route replays the same way every time.
  public static let defaultStart = Date(timeIntervalSince1970: 946_684_800)
}
