/// A request that got no HTTP answer: the connection was refused, the name did not resolve,
/// TLS failed, or the answer did not come within the timeout.
package struct HTTPTransportError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What kind of failure, for metrics and tests.
  package enum Kind: String, Sendable {
    /// Nothing listens at the address (connection refused or unreachable).
    case refused
    /// No complete answer within the total or connect timeout.
    case timeout
    /// The host name did not resolve.
    case dns
    /// The TLS handshake or the certificate check failed.
    case tls
    /// Anything else (the message says what).
    case other
  }

  /// What kind of failure.
  package var kind: Kind
  /// One line naming the URL and libcurl's own explanation.
  package var message: String

  /// A failure of this kind.
  package init(kind: Kind, message: String) {
    self.kind = kind
    self.message = message
  }

  /// The message.
  package var description: String { message }
}
