import CCrypto
import Foundation

/// A webhook's signing secret as Standard Webhooks writes it: `whsec_` followed by the
/// base64 of the key bytes (https://www.standardwebhooks.com, "Signature scheme").
///
/// Two secrets are equal when their keys are.
package struct WebhookSecret: Sendable, Equatable {
  /// The text prefix every secret carries, so a secret is recognisable in a config file.
  package static let prefix = "whsec_"

  /// The HMAC key: the bytes the base64 after the prefix stands for.
  package let key: [UInt8]
  /// The MAC under `key`, set up once for every signature made with this secret.
  package let mac: HMACSHA256

  /// The secret from its text: `whsec_` + base64 (standard alphabet, padding optional), or
  /// plain base64 without the prefix, as the spec's libraries accept both.
  /// - Throws: `DeliveryError.badSecret` when the text is not base64 of at least 1 byte.
  package init(text: String) throws(DeliveryError) {
    var body = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if body.hasPrefix(Self.prefix) { body.removeFirst(Self.prefix.count) }
    let padded = body + String(repeating: "=", count: (4 - body.count % 4) % 4)
    guard let data = Data(base64Encoded: padded), !data.isEmpty else {
      throw .badSecret("a webhook secret must be whsec_ followed by base64 key bytes")
    }
    try self.init(key: [UInt8](data))
  }

  /// A secret with the given key bytes.
  /// - Throws: `DeliveryError.crypto` when libcrypto cannot set up HMAC-SHA256.
  package init(key: [UInt8]) throws(DeliveryError) {
    self.key = key
    mac = try HMACSHA256(key: key)
  }

  /// A new secret of 24 random bytes from the system's CSPRNG (libcrypto's `RAND_bytes`,
  /// seeded by the kernel), as Standard Webhooks recommends (between 24 and 64 bytes).
  /// - Throws: `DeliveryError.random` when libcrypto cannot produce random bytes.
  package static func generate() throws(DeliveryError) -> WebhookSecret {
    var key = [UInt8](repeating: 0, count: 24)
    let status = key.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32($0.count)) }
    guard status == 1 else { throw .random("libcrypto's RAND_bytes failed (status \(status))") }
    return try WebhookSecret(key: key)
  }

  /// Equal when the keys are.
  package static func == (a: WebhookSecret, b: WebhookSecret) -> Bool { a.key == b.key }

  /// `whsec_` + base64 of the key: what a user is shown once and puts in a receiver.
  package var text: String { Self.prefix + Data(key).base64EncodedString() }
}
