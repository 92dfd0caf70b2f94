import DeliveryTestSupport
import Foundation
import Testing

@testable import Delivery

/// The libcurl client against a real receiver (Python, on a free loopback port).
@Suite(.serialized) struct HTTPClientTests {
  private static let secretText = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

  @Test func aSignedPostIsDeliveredAndTheReceiverChecksTheSignature() async throws {
    let scratch = try ScratchDirectory("delivery-http")
    let directory = scratch.url
    let receiver = try WebhookReceiver(in: directory, secret: Self.secretText)
    let client = try HTTPClient()
    defer { client.shutdown() }
    let body = Array(#"{"type":"arrived","mission_id":"M-1","seq":7}"#.utf8)
    let headers = WebhookSignature.headers(
      secret: try WebhookSecret(text: Self.secretText), seq: 7,
      timestamp: Int64(Date().timeIntervalSince1970), body: body)
    let result = await client.post(url: receiver.url("/ok"), headers: headers, body: body)
    #expect(result == .success(HTTPResponse(status: 200)))
    let seen = receiver.requests
    #expect(seen.count == 1)
    #expect(seen.first?.webhookID == "evt_7")
    #expect(seen.first?.signatureValid == true)
    #expect(seen.first?.body == String(decoding: body, as: UTF8.self))
  }

  /// (path, expected status, Retry-After range): each answer read as sent.
  @Test(
    arguments: [
      ("/fail", 500, nil), ("/busy", 503, 7.0...7.0), ("/busy-date", 503, 5.0...10.0),
      ("/gone", 410, nil), ("/status/404", 404, nil), ("/status/204", 204, nil),
    ] as [(String, Int, ClosedRange<Double>?)])
  func answersAreReadWithTheirRetryAfter(
    path: String, status: Int, retryAfter: ClosedRange<Double>?
  ) async throws {
    let scratch = try ScratchDirectory("delivery-http")
    let directory = scratch.url
    let receiver = try WebhookReceiver(in: directory)
    let client = try HTTPClient()
    defer { client.shutdown() }
    let result = await client.post(url: receiver.url(path), headers: [], body: Array("{}".utf8))
    guard case .success(let response) = result else {
      Issue.record("no answer: \(result)")
      return
    }
    #expect(response.status == status)
    if let retryAfter {
      #expect(response.retryAfterSeconds.map { retryAfter.contains($0) } == true)
    } else {
      #expect(response.retryAfterSeconds == nil)
    }
  }

  @Test func aHangingReceiverIsCutAtTheTimeout() async throws {
    let scratch = try ScratchDirectory("delivery-http")
    let directory = scratch.url
    let receiver = try WebhookReceiver(in: directory)
    var configuration = HTTPClient.Configuration()
    configuration.timeoutSeconds = 1
    let client = try HTTPClient(configuration: configuration)
    defer { client.shutdown() }
    let start = Date()
    let result = await client.post(url: receiver.url("/hang"), headers: [], body: [])
    let elapsed = Date().timeIntervalSince(start)
    guard case .failure(let error) = result else {
      Issue.record("answered: \(result)")
      return
    }
    #expect(error.kind == .timeout)
    #expect(error.message.contains(receiver.url("/hang")))
    #expect(!error.message.contains("\n"))
    // The receiver hangs 30 s: an answer before 10 s means the client cut it.
    #expect(elapsed < 10)
  }

  @Test func aRefusedConnectionIsAOneLineTransportError() async throws {
    let port = try MosquittoBroker.freePort()
    let client = try HTTPClient()
    defer { client.shutdown() }
    let result = await client.post(url: "http://127.0.0.1:\(port)/x", headers: [], body: [])
    guard case .failure(let error) = result else {
      Issue.record("answered: \(result)")
      return
    }
    #expect(error.kind == .refused)
    #expect(error.message.hasPrefix("POST http://127.0.0.1:\(port)/x: "))
    #expect(!error.message.contains("\n"))
  }

  /// 64 posts, 16 at a time: they share kept-alive connections (at most 16).
  @Test func concurrentPostsReuseKeptAliveConnections() async throws {
    let scratch = try ScratchDirectory("delivery-http")
    let directory = scratch.url
    let receiver = try WebhookReceiver(in: directory)
    let client = try HTTPClient()
    defer { client.shutdown() }
    for round in 0..<4 {
      let statuses = await withTaskGroup(of: Int.self) { group in
        for index in 0..<16 {
          group.addTask {
            let body = Array("{\"n\":\(round * 16 + index)}".utf8)
            let result = await client.post(url: receiver.url("/ok"), headers: [], body: body)
            return (try? result.get().status) ?? 0
          }
        }
        return await group.reduce(into: []) { $0.append($1) }
      }
      #expect(statuses == Array(repeating: 200, count: 16))
    }
    let requests = receiver.requests
    #expect(requests.count == 64)
    #expect(Set(requests.map(\.clientPort)).count <= 16)
  }

  @Test func httpsWorksWithTheTrustedCertificateAndFailsWithoutIt() async throws {
    let scratch = try ScratchDirectory("delivery-http")
    let directory = scratch.url
    let cert = directory.appendingPathComponent("cert.pem").path
    let key = directory.appendingPathComponent("key.pem").path
    let openssl = try ChildProcess(
      "/usr/bin/openssl",
      [
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days",
        "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
      ], in: directory, tag: "openssl")
    #expect(openssl.waitForExit(timeout: 30))
    let receiver = try WebhookReceiver(in: directory, certificate: (cert, key))
    var trusting = HTTPClient.Configuration()
    trusting.caFile = cert
    let client = try HTTPClient(configuration: trusting)
    defer { client.shutdown() }
    let result = await client.post(url: receiver.url("/ok"), headers: [], body: [])
    #expect(result == .success(HTTPResponse(status: 200)))
    let untrusting = try HTTPClient()
    defer { untrusting.shutdown() }
    let refused = await untrusting.post(url: receiver.url("/ok"), headers: [], body: [])
    guard case .failure(let error) = refused else {
      Issue.record("an untrusted certificate was accepted: \(refused)")
      return
    }
    #expect(error.kind == .tls)
  }
}
