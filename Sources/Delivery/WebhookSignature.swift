import Foundation

/// The Standard Webhooks signing rule (https://www.standardwebhooks.com): the headers a
/// delivery carries and the `v1` signature over `id.timestamp.body`.
package enum WebhookSignature {
  /// The `webhook-id` of the event with `seq`: `evt_<seq>`, the same on every retry so a
  /// receiver can drop a repeat.
  package static func messageID(seq: Int64) -> String { "evt_\(seq)" }

  /// `v1,` + base64 of HMAC-SHA256(secret key, "`id`.`timestamp`.`body`").
  /// - Parameters:
  ///   - id: the `webhook-id` header's value.
  ///   - timestamp: the `webhook-timestamp` header's value, epoch seconds.
  ///   - body: the exact bytes sent as the request body.
  package static func signature(
    secret: WebhookSecret, id: String, timestamp: Int64, body: [UInt8]
  ) -> String {
    let content = Array("\(id).\(timestamp).".utf8) + body
    let code = secret.mac.authenticationCode(for: content)
    return "v1," + Data(code).base64EncodedString()
  }

  /// The headers of one delivery attempt: `webhook-id`, `webhook-timestamp` (the attempt's
  /// time, so a receiver's replay window sees a fresh one on each retry),
  /// `webhook-signature`, and `content-type: application/json`.
  package static func headers(
    secret: WebhookSecret, seq: Int64, timestamp: Int64, body: [UInt8]
  ) -> [(name: String, value: String)] {
    let id = messageID(seq: seq)
    return [
      ("content-type", "application/json"),
      ("webhook-id", id),
      ("webhook-timestamp", String(timestamp)),
      ("webhook-signature", signature(secret: secret, id: id, timestamp: timestamp, body: body)),
    ]
  }
}
