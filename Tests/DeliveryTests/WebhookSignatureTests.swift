import Foundation
import Testing

@testable import Delivery

@Suite struct WebhookSignatureTests {
  @Test func theStandardWebhooksTestVectorSigns() throws {
    let secret = try WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    let signature = WebhookSignature.signature(
      secret: secret, id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: 1_614_265_330,
      body: Array(#"{"test": 2432232314}"#.utf8))
    #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
  }

  private static func hex(_ bytes: [UInt8]) -> String {
    bytes.map { String(format: "%02x", $0) }.joined()
  }

  /// RFC 4231 test cases 2 (a short key) and 6 (a key longer than the block, hashed first),
  /// and an empty key and message (the value `openssl dgst -sha256 -hmac ''` gives).
  @Test(
    arguments: [
      (
        Array("Jefe".utf8), "what do ya want for nothing?",
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
      ),
      (
        [UInt8](repeating: 0xAA, count: 131),
        "Test Using Larger Than Block-Size Key - Hash Key First",
        "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
      ),
      ([], "", "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad"),
    ] as [([UInt8], String, String)])
  func hmacMatchesKnownAnswers(key: [UInt8], message: String, expected: String) throws {
    let mac = try HMACSHA256(key: key)
    #expect(Self.hex(mac.authenticationCode(for: Array(message.utf8))) == expected)
    // The keyed context is unchanged by signing: the same answer again.
    #expect(Self.hex(mac.authenticationCode(for: Array(message.utf8))) == expected)
  }

  @Test func oneMACSignsFromManyTasksAtOnce() async throws {
    let mac = try HMACSHA256(key: Array("Jefe".utf8))
    let message = Array("what do ya want for nothing?".utf8)
    let codes = await withTaskGroup(of: String.self) { group in
      for _ in 0..<200 { group.addTask { Self.hex(mac.authenticationCode(for: message)) } }
      return await group.reduce(into: Set<String>()) { $0.insert($1) }
    }
    #expect(codes == ["5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"])
  }

  @Test func headersCarryAStableIDTheTimestampAndTheSignature() throws {
    let secret = try WebhookSecret(text: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
    let body = Array(#"{"type":"arrived","seq":42}"#.utf8)
    let first = WebhookSignature.headers(secret: secret, seq: 42, timestamp: 1_000, body: body)
    let retry = WebhookSignature.headers(secret: secret, seq: 42, timestamp: 1_300, body: body)
    let named = Dictionary(uniqueKeysWithValues: first.map { ($0.name, $0.value) })
    #expect(named["webhook-id"] == "evt_42")
    #expect(named["webhook-timestamp"] == "1000")
    #expect(
      named["webhook-signature"]
        == WebhookSignature.signature(secret: secret, id: "evt_42", timestamp: 1_000, body: body))
    #expect(named["content-type"] == "application/json")
    let retried = Dictionary(uniqueKeysWithValues: retry.map { ($0.name, $0.value) })
    #expect(retried["webhook-id"] == "evt_42")
    #expect(retried["webhook-signature"] != named["webhook-signature"])
  }

  @Test func aGeneratedSecretIs24RandomBytesWithThePrefix() throws {
    let one = try WebhookSecret.generate()
    let two = try WebhookSecret.generate()
    #expect(one.key.count == 24)
    #expect(one != two)
    #expect(one.text.hasPrefix("whsec_"))
    #expect(try WebhookSecret(text: one.text) == one)
  }

  @Test(arguments: ["whsec_", "whsec_not base64!", "", "whsec_@@@@"])
  func aMalformedSecretIsRefused(text: String) {
    #expect(throws: DeliveryError.self) { try WebhookSecret(text: text) }
  }

  @Test func aSecretWithoutPaddingOrPrefixReadsTheSameKey() throws {
    let padded = try WebhookSecret(text: "whsec_AAECAw==")
    #expect(padded.key == [0, 1, 2, 3])
    #expect(try WebhookSecret(text: "whsec_AAECAw") == padded)
    #expect(try WebhookSecret(text: "AAECAw==") == padded)
  }
}
