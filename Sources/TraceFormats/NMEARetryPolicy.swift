/// How a raw NMEA source reopens a device that went away (or is not there yet): capped
/// exponential backoff.
///
/// The delay before retry *n* (1-based) is `initialDelay × multiplier^(n-1)`, capped at
/// `maximumDelay`. An open that then delivered data resets the count. Same shape and defaults
/// as the gpsd source's `GPSDRetryPolicy` (the two modules may not import each other).
public struct NMEARetryPolicy: Sendable, Hashable {
  /// Delay before the first retry.
  public var initialDelay: Duration
  /// Upper bound on any delay.
  public var maximumDelay: Duration
  /// Factor applied per failed attempt, at least 1.
  public var multiplier: Double
  /// Consecutive failed opens after which the stream throws; `nil` retries for ever (the
  /// field-rig default: a USB receiver may be plugged back in at any time).
  public var maximumAttempts: Int?

  /// Creates a policy.
  ///
  /// - Parameters:
  ///   - initialDelay: delay before the first retry (default 0.5 s).
  ///   - maximumDelay: cap on the delay (default 30 s).
  ///   - multiplier: growth factor per attempt (default 2).
  ///   - maximumAttempts: give up after this many consecutive failures; `nil` never gives up.
  /// - Throws: `TraceError` naming the setting for a negative delay, a cap below the initial
  ///   delay, a multiplier below 1 or not finite, or an attempt limit below 1.
  public init(
    initialDelay: Duration = .milliseconds(500), maximumDelay: Duration = .seconds(30),
    multiplier: Double = 2, maximumAttempts: Int? = nil
  ) throws(TraceError) {
    guard initialDelay >= .zero else {
      throw TraceError(reason: "invalid initial retry delay \(initialDelay): must be >= 0")
    }
    guard maximumDelay >= initialDelay else {
      throw TraceError(
        reason: "invalid maximum retry delay \(maximumDelay): must be >= the initial delay "
          + "\(initialDelay)")
    }
    guard multiplier.isFinite, multiplier >= 1 else {
      throw TraceError(reason: "invalid retry multiplier \(multiplier): must be a number >= 1")
    }
    if let maximumAttempts, maximumAttempts < 1 {
      throw TraceError(reason: "invalid maximum attempts \(maximumAttempts): must be >= 1")
    }
    self.initialDelay = initialDelay
    self.maximumDelay = maximumDelay
    self.multiplier = multiplier
    self.maximumAttempts = maximumAttempts
  }

  private init(unchecked initialDelay: Duration, maximumDelay: Duration) {
    self.initialDelay = initialDelay
    self.maximumDelay = maximumDelay
    self.multiplier = 2
    self.maximumAttempts = nil
  }

  /// The field-rig default: 0.5 s, doubling, capped at 30 s, for ever.
  public static let standard = NMEARetryPolicy(
    unchecked: .milliseconds(500), maximumDelay: .seconds(30))

  /// The delay before retry number `attempt` (1-based), capped at `maximumDelay`.
  public func delay(beforeRetry attempt: Int) -> Duration {
    let initial = initialDelay.secondsValue
    let cap = maximumDelay.secondsValue
    var grown = initial
    var step = 1
    // Repeated multiplication instead of pow: Foundation's pow is fine too, but this keeps
    // the policy free of Foundation and stops as soon as the cap is reached.
    while step < attempt, grown < cap {
      grown *= multiplier
      step += 1
    }
    let seconds = min(grown, cap)
    return .nanoseconds(Int64((seconds * 1e9).rounded()))
  }
}

extension Duration {
  /// The duration in seconds as a `Double`.
  var secondsValue: Double {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) * 1e-18
  }
}
