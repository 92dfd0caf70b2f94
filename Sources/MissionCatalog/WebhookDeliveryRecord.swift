import Foundation

/// One event of a webhook that is not delivered yet, as `GET /v1/webhooks/{id}/deliveries`
/// lists it.
package struct WebhookDeliveryRecord: Sendable, Hashable {
  /// Where the delivery stands.
  package enum State: String, Sendable, CaseIterable {
    /// Not yet attempted, or in flight (after the webhook's cursor, no failure recorded).
    case pending
    /// Failed at least once; retried at `nextAttempt`.
    case failed
    /// Every attempt failed; no more are made until a redelivery.
    case dead
  }

  /// The webhook.
  package var webhookID: String
  /// The event's `seq`.
  package var sequence: Int64
  /// The state.
  package var state: State
  /// Attempts made.
  package var attempts: Int
  /// When the next attempt is due (failed only).
  package var nextAttempt: Date?
  /// The last failure (`HTTP 500`, a transport error).
  package var lastError: String?

  /// A record.
  package init(
    webhookID: String, sequence: Int64, state: State, attempts: Int, nextAttempt: Date? = nil,
    lastError: String? = nil
  ) {
    self.webhookID = webhookID
    self.sequence = sequence
    self.state = state
    self.attempts = attempts
    self.nextAttempt = nextAttempt
    self.lastError = lastError
  }
}
