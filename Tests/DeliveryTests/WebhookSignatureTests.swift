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

  /// RFC 4231 test case 2: a short key, and the known answer.
  @Test func hmacMatchesRFC4231() {
    let code = HMACSHA256.authenticationCode(
      key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
    let hex = code.map { String(format: "%02x", $0) }.joined()
    #expect(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  }

  @Test func anEmptyKeyAndBodyStillSign() {
    // RFC 4231 does not cover it; the value is HMAC-SHA256("", "") as OpenSSL's CLI gives.
    let code = HMACSHA256.authenticationCode(key: [], message: [])
    let hex = code.map { String(format: "%02x", $0) }.joined()
    #expect(hex == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
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
