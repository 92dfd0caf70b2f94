/// What one delivery attempt's result means for the event and the webhook.
///
/// The rule (Standard Webhooks: anything but a 2xx is a failure): a 2xx within the timeout
/// is delivered; `410 Gone` means the receiver asks us to stop, so the webhook is disabled;
/// every other answer (3xx are not followed: a signed body is not re-sent to another URL,
/// 4xx, 429, 5xx) and every transport failure (refused, DNS, TLS, timeout) is a failure
/// that is retried on the schedule. Other 4xx are retried too, not given up on: they are
/// often a receiver's deploy or configuration mistake that its owner fixes within the
/// three days of retries, and giving up early would lose events for good.
package enum DeliveryOutcome: Sendable, Equatable {
  /// A 2xx: the event is delivered and the cursor may pass it.
  case delivered
  /// Retry later; `retryAfterSeconds` from the answer, if any.
  case failed(reason: String, retryAfterSeconds: Double?)
  /// `410 Gone`: disable the webhook.
  case gone

  /// The outcome of one attempt's result.
  package init(_ result: Result<HTTPResponse, HTTPTransportError>) {
    switch result {
    case .success(let response) where (200...299).contains(response.status):
      self = .delivered
    case .success(let response) where response.status == 410:
      self = .gone
    case .success(let response):
      self = .failed(
        reason: "HTTP \(response.status)", retryAfterSeconds: response.retryAfterSeconds)
    case .failure(let error):
      self = .failed(reason: error.message, retryAfterSeconds: nil)
    }
  }
}
