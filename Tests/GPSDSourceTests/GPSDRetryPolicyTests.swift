import Foundation
import Testing

@testable import GPSDSource

struct GPSDRetryPolicyTests {
  @Test func delaysGrowExponentiallyUpToTheCap() throws {
    let policy = try GPSDRetryPolicy(
      initialDelay: .milliseconds(100), maximumDelay: .seconds(1), multiplier: 3)
    let delays = (1...5).map { policy.delay(beforeRetry: $0) }
    #expect(
      delays == [
        .milliseconds(100), .milliseconds(300), .milliseconds(900), .seconds(1), .seconds(1),
      ])
    #expect(policy.delay(beforeRetry: 10_000) == .seconds(1))  // no overflow
  }

  @Test func theStandardPolicyRetriesForEver() {
    #expect(GPSDRetryPolicy.standard.maximumAttempts == nil)
    #expect(GPSDRetryPolicy.standard.delay(beforeRetry: 1) == .milliseconds(500))
    #expect(GPSDRetryPolicy.standard.delay(beforeRetry: 100) == .seconds(30))
  }

  @Test func badPoliciesAreRejected() {
    #expect(throws: GPSDError.self) { try GPSDRetryPolicy(initialDelay: .seconds(-1)) }
    #expect(throws: GPSDError.self) {
      try GPSDRetryPolicy(initialDelay: .seconds(2), maximumDelay: .seconds(1))
    }
    #expect(throws: GPSDError.self) { try GPSDRetryPolicy(multiplier: 0.5) }
    #expect(throws: GPSDError.self) { try GPSDRetryPolicy(maximumAttempts: 0) }
  }
}
