import Foundation

/// How a live fix source retries when its receiver cannot be reached: capped exponential
/// backoff.
///
/// The delay before retry *n* (1-based) is `initialDelay × multiplier^(n-1)`, capped at
/// `maximumDelay`. The same policy applies at start-up (receiver not there yet) and after a
/// lost connection; a connection that delivered data resets the count. Shared by the gpsd
/// source and the raw NMEA device source.
public struct RetryPolicy: Sendable, Hashable {
  /// Delay before the first retry.
  public var initialDelay: Duration
  /// Upper bound on any delay.
  public var maximumDelay: Duration
  /// Factor applied per failed attempt, at least 1.
  public var multiplier: Double
  /// Consecutive failed attempts after which the source gives up and its stream throws the
  /// `LiveSourceError.unreachable`; `nil` retries for ever (the field-rig default).
  public var maximumAttempts: Int?
  /// Whether a receiver that cannot be used at all (a directory, permission denied) is
  /// retried like one not there yet, rather than ending the stream with
  /// `LiveSourceError.unusable`: for a service, which must keep trying until the operator
  /// fixes the path, and not for a command, which should fail at once. Default false.
  public var retriesUnusableReceivers = false

  /// Creates a policy.
  ///
  /// - Parameters:
  ///   - initialDelay: delay before the first retry (default 0.5 s).
  ///   - maximumDelay: cap on the delay (default 30 s).
  ///   - multiplier: growth factor per attempt (default 2).
  ///   - maximumAttempts: give up after this many consecutive failures; `nil` never gives up.
  /// - Throws: `LiveSourceError.invalidConfiguration` naming the setting and value for a
  ///   negative delay, a cap below the initial delay, a multiplier below 1 or not finite, or
  ///   an attempt limit below 1.
  public init(
    initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30),
    multiplier: Double = 2, maximumAttempts: Int? = nil
  ) throws(LiveSourceError) {
    guard initialDelay >= .zero else {
      throw Self.invalid("initial retry delay", "\(initialDelay)", "must be >= 0")
    }
    guard maximumDelay >= initialDelay else {
      throw Self.invalid(
        "maximum retry delay", "\(maximumDelay)", "must be >= the initial delay \(initialDelay)")
    }
    guard multiplier.isFinite, multiplier >= 1 else {
      throw Self.invalid("retry multiplier", "\(multiplier)", "must be a number >= 1")
    }
    if let maximumAttempts, maximumAttempts < 1 {
      throw Self.invalid("maximum attempts", "\(maximumAttempts)", "must be >= 1")
    }
    self.init(
      uncheckedInitialDelay: initialDelay, maximumDelay: maximumDelay, multiplier: multiplier,
      maximumAttempts: maximumAttempts)
  }

  /// The field-rig default: 0.5 s, doubling, capped at 30 s, for ever.
  public static let standard = RetryPolicy(
    uncheckedInitialDelay: .milliseconds(500), maximumDelay: .seconds(30), multiplier: 2,
    maximumAttempts: nil)

  private init(
    uncheckedInitialDelay initialDelay: Duration, maximumDelay: Duration, multiplier: Double,
    maximumAttempts: Int?
  ) {
    self.initialDelay = initialDelay
    self.maximumDelay = maximumDelay
    self.multiplier = multiplier
    self.maximumAttempts = maximumAttempts
  }

  private static func invalid(_ setting: String, _ value: String, _ reason: String)
    -> LiveSourceError
  {
    .invalidConfiguration(setting: setting, value: value, reason: reason)
  }

  /// The delay before retry number `attempt` (1-based; smaller values count as 1), capped at
  /// `maximumDelay`.
  ///
  /// - Complexity: O(1).
  public func delay(beforeRetry attempt: Int) -> Duration {
    let initial = initialDelay.seconds
    let cap = maximumDelay.seconds
    // Grow in floating point; the cap keeps pow from mattering once it overflows to +inf.
    let grown = initial * Foundation.pow(multiplier, Double(max(attempt, 1) - 1))
    let seconds = grown.isFinite ? min(grown, cap) : cap
    return .nanoseconds(Int64((seconds * 1e9).rounded()))
  }
}
