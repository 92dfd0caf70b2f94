import Foundation
import LiveSources
import Testing

@Suite struct RetryPolicyTests {
  @Test func delaysGrowExponentiallyUpToTheCap() throws {
    let policy = try RetryPolicy(
      initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 3)
    let delays = (1...5).map { policy.delay(beforeRetry: $0) }
    #expect(
      delays == [
        .milliseconds(100), .milliseconds(300), .milliseconds(900), .seconds(1), .seconds(1),
      ])
    #expect(policy.delay(beforeRetry: 10_000) == .seconds(1))  // no overflow
    #expect(policy.delay(beforeRetry: 0) == .milliseconds(100))  // counts as the first retry
  }

  @Test func aDoublingPolicyReachesItsCapAndStaysThere() throws {
    let policy = try RetryPolicy(
      initialDelay: .milliseconds(500), maximumDelay: .seconds(3), multiplier: 2)
    #expect(
      (1...6).map { policy.delay(beforeRetry: $0) } == [
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(3), .seconds(3), .seconds(3),
      ])
  }

  @Test func theStandardPolicyRetriesForEver() throws {
    #expect(RetryPolicy.standard.maximumAttempts == nil)
    #expect(RetryPolicy.standard.delay(beforeRetry: 1) == .milliseconds(500))
    #expect(RetryPolicy.standard.delay(beforeRetry: 100) == .seconds(30))
    #expect(try RetryPolicy() == RetryPolicy.standard)
  }

  @Test func badPoliciesAreRejectedNamingTheSettingAndValue() {
    let cases: [(() throws(LiveSourceError) -> RetryPolicy, String)] = [
      (
        { () throws(LiveSourceError) in try RetryPolicy(initialDelay: .seconds(-1)) },
        "invalid initial retry delay '-1.0 seconds': must be >= 0"
      ),
      (
        { () throws(LiveSourceError) in
          try RetryPolicy(initialDelay: .seconds(2), maximumDelay: .seconds(1))
        }, "invalid maximum retry delay '1.0 seconds': must be >= the initial delay 2.0 seconds"
      ),
      (
        { () throws(LiveSourceError) in try RetryPolicy(multiplier: 0.5) },
        "invalid retry multiplier '0.5': must be a number >= 1"
      ),
      (
        { () throws(LiveSourceError) in try RetryPolicy(multiplier: .nan) },
        "invalid retry multiplier 'nan': must be a number >= 1"
      ),
      (
        { () throws(LiveSourceError) in try RetryPolicy(maximumAttempts: 0) },
        "invalid maximum attempts '0': must be >= 1"
      ),
    ]
    for (make, text) in cases {
      let error = #expect(throws: LiveSourceError.self) { try make() }
      #expect(error?.description == text)
    }
  }
}
