/// When a failed webhook delivery is tried again: the Standard Webhooks schedule of about
/// 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after each failure (ten attempts
/// in all, about three days), each wait moved by a random jitter so receivers that come back
/// together are not hit together, and never shorter than the receiver's `Retry-After`.
///
/// Pure: the random source is passed in, so tests fix it.
package struct RetrySchedule: Sendable, Equatable {
  /// The production schedule (DESIGN §9): ±10 % jitter, `Retry-After` honoured up to 24 h.
  package static let standard = RetrySchedule(
    delaysSeconds: [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400],
    jitterFraction: 0.1, maximumRetryAfterSeconds: 86_400)

  /// The wait after the 1st, 2nd, … failed attempt; after the last one the delivery is dead.
  package var delaysSeconds: [Double]
  /// Each wait is multiplied by a uniform random factor in `1 ± jitterFraction`.
  package var jitterFraction: Double
  /// The longest `Retry-After` honoured: a receiver cannot push a retry further than this.
  package var maximumRetryAfterSeconds: Double
  /// Every wait (and `Retry-After`) is multiplied by this: 1 in production, see `scaled(by:)`.
  package private(set) var timeScale: Double = 1

  /// A schedule with these waits.
  package init(delaysSeconds: [Double], jitterFraction: Double, maximumRetryAfterSeconds: Double) {
    self.delaysSeconds = delaysSeconds
    self.jitterFraction = jitterFraction
    self.maximumRetryAfterSeconds = maximumRetryAfterSeconds
  }

  /// How many attempts a delivery gets before it is dead: the first and one per wait.
  package var attemptLimit: Int { delaysSeconds.count + 1 }

  /// The same schedule with time running `1 / factor` times faster: every wait, the cap and
  /// a receiver's `Retry-After` are multiplied by `factor`.
  ///
  /// For tests only (`RetrySchedule.standard.scaled(by: 0.001)` turns 5 s into 5 ms, 24 h
  /// into 86.4 s and `Retry-After: 7` into 7 ms); production uses `standard` as it is.
  package func scaled(by factor: Double) -> RetrySchedule {
    var copy = self
    copy.timeScale *= factor
    return copy
  }

  /// The wait in seconds before the next attempt after attempt number `attempt` (1 for the
  /// first) failed, or nil when that was the last attempt (the delivery is dead).
  ///
  /// A `retryAfterSeconds` from the receiver wins when it is longer than the jittered wait;
  /// it is capped at `maximumRetryAfterSeconds`.
  package func delay(
    afterFailedAttempt attempt: Int, retryAfterSeconds: Double?,
    random: inout some RandomNumberGenerator
  ) -> Double? {
    guard attempt >= 1, attempt <= delaysSeconds.count else { return nil }
    let base = delaysSeconds[attempt - 1]
    var wait =
      jitterFraction > 0
      ? base * (1 + Double.random(in: -jitterFraction...jitterFraction, using: &random))
      : base
    if let retryAfterSeconds, retryAfterSeconds.isFinite, retryAfterSeconds > 0 {
      wait = max(wait, min(retryAfterSeconds, maximumRetryAfterSeconds))
    }
    return wait * timeScale
  }
}
