import DeliveryTestSupport
import Foundation
import Synchronization
import Testing

@testable import Delivery

/// The outbox's MQTT consumer against a real `mosquitto`.
@Suite(.serialized, .enabled(if: MosquittoBroker.isAvailable))
struct MQTTDeliveryTests {
  private static func event(_ seq: Int64, _ mission: String?) -> OutboxEvent {
    OutboxEvent(seq: seq, missionID: mission, body: Array(#"{"seq":\#(seq)}"#.utf8))
  }

  @Test func eventsArriveInMissionOrderAndTheCursorFollowsThePUBACKs() async throws {
    let scratch = try ScratchDirectory("delivery-mqtt")
    let broker = try MosquittoBroker(in: scratch.url)
    let publisher = try MQTTPublisher(
      broker: try MQTTBrokerAddress(url: broker.url), clientID: "test-outbox",
      topics: try MQTTTopics(prefix: "mt"))
    defer { publisher.close() }
    let subscriber = try MosquittoSubscriber(
      port: broker.port, filter: "mt/missions/+/events", in: scratch.url)
    let reported = Mutex<[Int64]>([])
    let delivery = MQTTDelivery(publisher: publisher, cursor: 0) { position in
      reported.withLock { $0.append(position) }
    }
    let missions = ["A", "B", "C", nil]
    let events = (1...200).map { Self.event(Int64($0), missions[$0 % missions.count]) }
    for batch in stride(from: 0, to: 200, by: 20) {
      await delivery.enqueue(Array(events[batch..<batch + 20]))
    }
    // A guard against a hang only: in the whole suite on 2 cores the cooperative pool this
    // test needs is shared with every other async test (it once took 87 s, once over 97 s).
    #expect(await eventually(300) { await delivery.cursor == 200 })
    let positions = reported.withLock { $0 }
    #expect(positions == positions.sorted() && positions.last == 200)
    let seen = subscriber.wait(timeout: 300) { $0.count >= 150 }
    #expect(seen.count == 150)
    for mission in ["A", "B", "C"] {
      let seqs = seen.filter { $0.hasPrefix("mt/missions/\(mission)/events ") }
        .compactMap { Int($0.split(separator: ":").last?.dropLast() ?? "") }
      #expect(seqs.count == 50)
      #expect(seqs == seqs.sorted(), "mission \(mission): \(seqs)")
    }
  }

  @Test func theCursorWaitsWhileTheBrokerIsAwayAndCatchesUpAfter() async throws {
    let scratch = try ScratchDirectory("delivery-mqtt")
    let broker = try MosquittoBroker(in: scratch.url)
    let publisher = try MQTTPublisher(
      broker: try MQTTBrokerAddress(url: broker.url), clientID: "test-outbox-away",
      topics: try MQTTTopics(prefix: "mt"))
    defer { publisher.close() }
    let delivery = MQTTDelivery(publisher: publisher, cursor: 0) { _ in }
    await delivery.enqueue((1...10).map { Self.event(Int64($0), "A") })
    #expect(await eventually(60) { await delivery.cursor == 10 })
    broker.stop()
    #expect(await eventually(60) { !publisher.isConnected })
    await delivery.enqueue((11...30).map { Self.event(Int64($0), "A") })
    try await Task.sleep(for: .seconds(2))
    #expect(await delivery.cursor == 10)
    #expect(await delivery.heldCount == 20)
    try broker.start()
    #expect(await eventually(90) { await delivery.cursor == 30 })
  }
}
