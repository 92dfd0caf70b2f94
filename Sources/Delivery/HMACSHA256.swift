import CCrypto

/// HMAC-SHA256 (RFC 2104 over FIPS 180-4 SHA-256), computed by OpenSSL's libcrypto: the
/// one place this package calls `HMAC`. Never a hand-written hash.
package enum HMACSHA256 {
  /// The 32-byte authentication code of `message` under `key`.
  /// - Complexity: O(key.count + message.count).
  package static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var code = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
    var length: UInt32 = 0
    // HMAC returns NULL only for an unknown digest or a failed allocation; EVP_sha256 is
    // built into every libcrypto, so a NULL here is memory exhaustion. Arrays passed
    // directly give valid pointers even when empty.
    let done = HMAC(
      EVP_sha256(), key, Int32(key.count), message, message.count, &code, &length)
    precondition(done != nil, "libcrypto's HMAC-SHA256 failed (out of memory)")
    return Array(code.prefix(Int(length)))
  }
}
