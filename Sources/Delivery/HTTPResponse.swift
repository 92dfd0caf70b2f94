/// What a receiver answered: the status and its `Retry-After`, if it sent one.
package struct HTTPResponse: Sendable, Equatable {
  /// The HTTP status code.
  package var status: Int
  /// `Retry-After` in seconds from when the answer arrived (a delay as sent, or an HTTP
  /// date turned into the seconds until it); nil when absent or unreadable.
  package var retryAfterSeconds: Double?

  /// A response with this status and `Retry-After`.
  package init(status: Int, retryAfterSeconds: Double? = nil) {
    self.status = status
    self.retryAfterSeconds = retryAfterSeconds
  }
}
