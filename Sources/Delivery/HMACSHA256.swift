import CCrypto

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4 SHA-256) under one key, computed by OpenSSL's
/// libcrypto: the one place this package calls its MAC functions. Never a hand-written hash.
///
/// The key is set up once (libcrypto's keyed context); each code is computed on a copy of
/// it, so one value serves any number of threads at once.
///
/// `@unchecked Sendable`: `keyed` is written only here in `init` and freed in `deinit`;
/// signing only reads it (`EVP_MAC_CTX_dup` takes a `const` context).
package final class HMACSHA256: @unchecked Sendable {
  private let keyed: OpaquePointer

  /// A MAC keyed with `key` (any length; longer than 64 bytes is hashed first, per RFC 2104).
  /// - Throws: `DeliveryError.crypto` when libcrypto has no HMAC or SHA-256 (a broken
  ///   OpenSSL installation) or no memory.
  package init(key: [UInt8]) throws(DeliveryError) {
    // A Swift array passed directly is a valid pointer even when empty (an empty key is
    // valid HMAC; NULL would mean "keep the old key" to libcrypto).
    guard let keyed = missiontrack_hmac_sha256_new(key, key.count) else {
      throw .crypto("libcrypto cannot set up HMAC-SHA256 (EVP_MAC_fetch or EVP_MAC_init failed)")
    }
    self.keyed = keyed
  }

  deinit { EVP_MAC_CTX_free(keyed) }

  /// The 32-byte authentication code of `message`.
  /// - Complexity: O(message.count).
  package func authenticationCode(for message: [UInt8]) -> [UInt8] {
    var code = [UInt8](repeating: 0, count: 32)
    let done = missiontrack_hmac_sha256_sign(keyed, message, message.count, &code)
    // Signing a copy of a context that was keyed fails only when the copy cannot be
    // allocated: memory exhaustion, which Swift traps on anyway.
    precondition(done == 1, "libcrypto's HMAC-SHA256 failed (out of memory)")
    return code
  }
}
