import MissionProximity
import Testing

@testable import Delivery

@Suite struct RetryScheduleTests {
  private var unjittered: RetrySchedule {
    var schedule = RetrySchedule.standard
    schedule.jitterFraction = 0
    return schedule
  }

  @Test func theProductionScheduleIsTenAttemptsOverAboutThreeDays() {
    var random = SplitMix64(seed: 1)
    let waits = (1...10).map {
      unjittered.delay(afterFailedAttempt: $0, retryAfterSeconds: nil, random: &random)
    }
    #expect(
      waits == [5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400, nil])
    #expect(RetrySchedule.standard.attemptLimit == 10)
    #expect(RetrySchedule.standard.timeScale == 1)
  }

  @Test func jitterStaysWithinTenPercentAndVaries() {
    var random = SplitMix64(seed: 7)
    let waits = (0..<200).compactMap { _ in
      RetrySchedule.standard.delay(afterFailedAttempt: 2, retryAfterSeconds: nil, random: &random)
    }
    #expect(waits.allSatisfy { (270...330).contains($0) })
    #expect(Set(waits).count > 150)
    #expect(waits.contains { $0 < 290 } && waits.contains { $0 > 310 })
  }

  /// (attempt, Retry-After, expected wait): a longer Retry-After wins, a shorter one does
  /// not shorten the wait, and none goes past 24 h.
  @Test(arguments: [
    (1, 60.0, 60.0), (1, 2.0, 5.0), (2, 600.0, 600.0), (9, 200_000.0, 86_400.0),
    (3, 90_000.0, 86_400.0), (1, -3.0, 5.0), (1, Double.nan, 5.0),
  ])
  func retryAfterIsHonouredAndCapped(attempt: Int, retryAfter: Double, expected: Double) {
    var random = SplitMix64(seed: 3)
    let wait = unjittered.delay(
      afterFailedAttempt: attempt, retryAfterSeconds: retryAfter, random: &random)
    #expect(wait == expected)
  }

  @Test func aScaledScheduleScalesWaitsAndRetryAfterButNotTheAttempts() {
    var random = SplitMix64(seed: 3)
    let fast = unjittered.scaled(by: 0.001)
    #expect(fast.delay(afterFailedAttempt: 1, retryAfterSeconds: nil, random: &random) == 0.005)
    #expect(fast.delay(afterFailedAttempt: 1, retryAfterSeconds: 7, random: &random) == 0.007)
    #expect(fast.delay(afterFailedAttempt: 9, retryAfterSeconds: nil, random: &random) == 86.4)
    #expect(fast.delay(afterFailedAttempt: 10, retryAfterSeconds: nil, random: &random) == nil)
    #expect(fast.attemptLimit == 10)
  }
}
