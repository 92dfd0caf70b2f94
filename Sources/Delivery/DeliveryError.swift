/// What went wrong in the delivery layer, each case with a one-line message that names the
/// value or the library call that failed.
package enum DeliveryError: Error, Equatable, CustomStringConvertible {
  /// A webhook secret that is not `whsec_` + base64.
  case badSecret(String)
  /// The system's random source failed.
  case random(String)
  /// libcrypto could not set up HMAC-SHA256.
  case crypto(String)
  /// An `mqtt://HOST:PORT` address that does not parse.
  case badBrokerURL(String)
  /// An MQTT topic prefix with a wildcard or NUL.
  case badTopic(String)
  /// libmosquitto refused a call (the message names the call and its error).
  case mqtt(String)
  /// libcurl could not be set up (not a failed delivery: those are `HTTPTransportError`).
  case http(String)

  /// The message, one line.
  package var description: String {
    switch self {
    case .badSecret(let message), .random(let message), .crypto(let message),
      .badBrokerURL(let message),
      .badTopic(let message), .mqtt(let message), .http(let message):
      return message
    }
  }
}
