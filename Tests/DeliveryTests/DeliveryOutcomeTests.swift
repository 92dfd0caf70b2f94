import Testing

@testable import Delivery

@Suite struct DeliveryOutcomeTests {
  private static let refused = HTTPTransportError(
    kind: .refused, message: "POST http://127.0.0.1:9/: Couldn't connect to server")

  /// Every answer and failure, with what it means: only a 2xx delivers, only 410 disables.
  @Test(arguments: [
    (
      Result<HTTPResponse, HTTPTransportError>.success(HTTPResponse(status: 200)),
      DeliveryOutcome.delivered
    ),
    (.success(HTTPResponse(status: 204)), .delivered),
    (.success(HTTPResponse(status: 299)), .delivered),
    (.success(HTTPResponse(status: 410)), .gone),
    (.success(HTTPResponse(status: 500)), .failed(reason: "HTTP 500", retryAfterSeconds: nil)),
    (
      .success(HTTPResponse(status: 503, retryAfterSeconds: 7)),
      .failed(reason: "HTTP 503", retryAfterSeconds: 7)
    ),
    (
      .success(HTTPResponse(status: 429, retryAfterSeconds: 30)),
      .failed(reason: "HTTP 429", retryAfterSeconds: 30)
    ),
    (.success(HTTPResponse(status: 404)), .failed(reason: "HTTP 404", retryAfterSeconds: nil)),
    (.success(HTTPResponse(status: 400)), .failed(reason: "HTTP 400", retryAfterSeconds: nil)),
    (.success(HTTPResponse(status: 301)), .failed(reason: "HTTP 301", retryAfterSeconds: nil)),
    (.success(HTTPResponse(status: 100)), .failed(reason: "HTTP 100", retryAfterSeconds: nil)),
    (.failure(refused), .failed(reason: refused.message, retryAfterSeconds: nil)),
  ])
  func classifies(result: Result<HTTPResponse, HTTPTransportError>, expected: DeliveryOutcome) {
    #expect(DeliveryOutcome(result) == expected)
  }
}
