import Foundation

/// A clock that says what it was last set to: the trace's clock in a replay, and tests.
///
/// `@unchecked Sendable`: `time` is only touched while holding `lock`.
public final class ManualClock: MissionClock, @unchecked Sendable {
  private let lock = NSLock()
  private var time: Date

  /// Creates a clock showing `time`.
  public init(_ time: Date) { self.time = time }

  /// The time last set.
  public func now() -> Date { lock.withLock { time } }

  /// Sets the time.
  public func set(_ time: Date) { lock.withLock { self.time = time } }
}
