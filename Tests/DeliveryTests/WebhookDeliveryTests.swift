import DeliveryTestSupport
import Foundation
import Synchronization
import Testing

@testable import Delivery

/// One webhook's deliveries end to end: the dispatcher, the libcurl client and a real
/// receiver (Python) that checks every signature.
@Suite(.serialized) struct WebhookDeliveryTests {
  private static let secretText = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

  /// What `report` was told, in order.
  private final class Reports: Sendable {
    let actions = Mutex<[WebhookDispatcher.Action]>([])
    func append(_ action: WebhookDispatcher.Action) { actions.withLock { $0.append(action) } }
    var all: [WebhookDispatcher.Action] { actions.withLock { $0 } }
  }

  /// A receiver, a client, and one webhook's deliveries to `path` on it (nil: a port where
  /// nothing listens), with what they reported.
  private final class Rig {
    let scratch: ScratchDirectory
    let receiver: WebhookReceiver
    let client: HTTPClient
    let reports = Reports()
    let delivery: WebhookDelivery

    init(
      path: String?, schedule: RetrySchedule = .standard, maximumInFlight: Int = 16,
      timeoutSeconds: Double = 10
    ) throws {
      scratch = try ScratchDirectory("delivery-webhook")
      receiver = try WebhookReceiver(in: scratch.url, secret: WebhookDeliveryTests.secretText)
      var configuration = HTTPClient.Configuration()
      configuration.timeoutSeconds = timeoutSeconds
      client = try HTTPClient(configuration: configuration)
      let url = try path.map(receiver.url) ?? "http://127.0.0.1:\(MosquittoBroker.freePort())/x"
      delivery = WebhookDelivery(
        endpoint: .init(url: url, secret: try WebhookSecret(text: WebhookDeliveryTests.secretText)),
        cursor: 0, client: client, schedule: schedule, maximumInFlight: maximumInFlight,
        report: reports.append)
    }

    deinit { client.shutdown() }
  }

  private static func event(_ seq: Int64, _ mission: String) -> OutboxEvent {
    OutboxEvent(
      seq: seq, missionID: mission,
      body: Array(#"{"type":"fix","mission_id":"\#(mission)","seq":\#(seq)}"#.utf8))
  }

  @Test func everyEventArrivesSignedAndEachMissionInOrder() async throws {
    let rig = try Rig(path: "/ok")
    let (receiver, reports, delivery) = (rig.receiver, rig.reports, rig.delivery)
    let missions = ["A", "B", "C", "D", "E", "F"]
    let events = (1...120).map { Self.event(Int64($0), missions[$0 * 7 % missions.count]) }
    for batch in stride(from: 0, to: events.count, by: 10) {
      await delivery.enqueue(Array(events[batch..<batch + 10]))
    }
    #expect(await eventually(60) { await delivery.cursor == 120 })
    let requests = receiver.requests
    #expect(requests.count == 120)
    #expect(requests.allSatisfy { $0.signatureValid == true })
    #expect(Set(requests.compactMap(\.webhookID)) == Set((1...120).map { "evt_\($0)" }))
    for mission in missions {
      let seqs = requests.filter { $0.body.contains(#""mission_id":"\#(mission)""#) }
        .compactMap { $0.webhookID.flatMap { Int($0.dropFirst(4)) } }
      #expect(seqs == seqs.sorted(), "mission \(mission) out of order: \(seqs)")
    }
    #expect(reports.all.last == .advanceCursor(to: 120))
  }

  /// The README's Python signature check, run as printed there, accepts a real delivery and
  /// refuses it with one byte of the body changed.
  @Test func theREADMEsSignatureCheckAcceptsADeliveryAndRefusesATamperedOne() async throws {
    let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("README.md")
    let text = try String(contentsOf: readme, encoding: .utf8)
    let start = try #require(text.range(of: "```python\n"))
    let end = try #require(text.range(of: "\n```", range: start.upperBound..<text.endIndex))
    let check = String(text[start.upperBound..<end.lowerBound])
    #expect(check.contains("def verify(") && check.split(separator: "\n").count <= 12)
    let rig = try Rig(path: "/ok")
    await rig.delivery.enqueue([Self.event(7, "A")])
    #expect(await eventually(60) { await rig.delivery.cursor == 7 })
    let request = try #require(rig.receiver.requests.first)
    let headers = [
      "webhook-id": request.webhookID ?? "", "webhook-timestamp": request.timestamp ?? "",
      "webhook-signature": request.signature ?? "",
    ]
    let delivery = try JSONSerialization.data(
      withJSONObject: ["headers": headers, "body": request.body, "secret": Self.secretText])
    let script =
      check + """

        import json, sys
        d = json.load(sys.stdin)
        body = d["body"].encode()
        print(verify(d["secret"], d["headers"], body), verify(d["secret"], d["headers"], body + b" "))
        """
    let python = Process()
    python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    python.arguments = ["-c", script]
    let input = Pipe()
    let output = Pipe()
    python.standardInput = input
    python.standardOutput = output
    try python.run()
    try input.fileHandleForWriting.write(contentsOf: delivery)
    try input.fileHandleForWriting.close()
    let printed = try output.fileHandleForReading.readToEnd() ?? Data()
    python.waitUntilExit()
    #expect(String(decoding: printed, as: UTF8.self) == "True False\n")
  }

  /// Ten attempts on the (scaled) production schedule, the same `webhook-id` each time,
  /// then dead; the mission's next event goes after it.
  @Test func aFailingReceiverGetsTenAttemptsThenTheEventIsDead() async throws {
    let rig = try Rig(path: "/fail", schedule: RetrySchedule.standard.scaled(by: 0.00001))
    let (receiver, reports, delivery) = (rig.receiver, rig.reports, rig.delivery)
    await delivery.enqueue([Self.event(1, "A")])
    #expect(await eventually(60) { await delivery.cursor == 1 })
    let requests = receiver.requests
    #expect(requests.count == 10)
    #expect(requests.allSatisfy { $0.webhookID == "evt_1" && $0.signatureValid == true })
    let all = reports.all
    #expect(all.filter { if case .retryLater = $0 { true } else { false } }.count == 9)
    #expect(all.contains(.dead(seq: 1, attempts: 10, reason: "HTTP 500")))
  }

  @Test func gone410DisablesTheWebhookAndNothingMoreIsSent() async throws {
    let rig = try Rig(path: "/gone", maximumInFlight: 1)
    let (receiver, reports, delivery) = (rig.receiver, rig.reports, rig.delivery)
    await delivery.enqueue([Self.event(1, "A"), Self.event(2, "B")])
    #expect(await eventually(60) { await delivery.isDisabled })
    await delivery.enqueue([Self.event(3, "C")])
    try await Task.sleep(for: .milliseconds(300))
    #expect(receiver.requests.count == 1)
    #expect(reports.all == [.disable(reason: "the receiver answered 410 Gone for event 1")])
    #expect(await delivery.cursor == 0)
  }

  /// A receiver that hangs is cut at the timeout each time, and one that refuses is retried
  /// too: both dead after the last attempt, with the reason.
  @Test(arguments: ["/hang", nil] as [String?])
  func hangingAndRefusingReceiversAreRetriedThenDead(path: String?) async throws {
    let schedule = RetrySchedule(
      delaysSeconds: [0.05, 0.05], jitterFraction: 0.1, maximumRetryAfterSeconds: 1)
    let rig = try Rig(path: path, schedule: schedule, timeoutSeconds: 0.3)
    let (receiver, reports, delivery) = (rig.receiver, rig.reports, rig.delivery)
    await delivery.enqueue([Self.event(1, "A")])
    #expect(await eventually(60) { await delivery.cursor == 1 })
    let dead = reports.all.compactMap { action -> (Int, String)? in
      if case .dead(_, let attempts, let reason) = action { (attempts, reason) } else { nil }
    }
    #expect(dead.count == 1)
    #expect(dead.first?.0 == 3)
    let reason = dead.first?.1 ?? ""
    #expect(reason.contains(path == nil ? "Couldn't connect" : "timed out"), "\(reason)")
    // The client gives up on a hanging request after 0.3 s, whether or not the receiver has
    // read it yet: a loaded receiver logs the third one after the event is already dead.
    if path != nil {
      #expect(await eventually(60) { receiver.requests.count >= 3 })
      #expect(receiver.requests.count == 3)
    }
  }
}
