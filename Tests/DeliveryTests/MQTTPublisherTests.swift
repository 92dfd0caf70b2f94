import DeliveryTestSupport
import Foundation
import Synchronization
import Testing

@testable import Delivery

/// The libmosquitto publisher against a real `mosquitto` on a private loopback port.
@Suite(.serialized, .enabled(if: MosquittoBroker.isAvailable))
struct MQTTPublisherTests {
  /// A scratch directory, a private broker, the topics under `mt`, and publishers to it
  /// (closed when the rig is released).
  private final class Rig {
    let scratch: ScratchDirectory
    let broker: MosquittoBroker
    let topics: MQTTTopics
    private var publishers: [MQTTPublisher] = []

    init() throws {
      scratch = try ScratchDirectory("delivery-mqtt")
      broker = try MosquittoBroker(in: scratch.url)
      topics = try MQTTTopics(prefix: "mt")
    }

    deinit { for publisher in publishers { publisher.close() } }

    var directory: URL { scratch.url }

    /// A publisher to the broker as `clientID`.
    func publisher(_ clientID: String) throws -> MQTTPublisher {
      let publisher = try MQTTPublisher(
        broker: try MQTTBrokerAddress(url: broker.url), clientID: clientID, topics: topics)
      publishers.append(publisher)
      return publisher
    }
  }

  @Test func aQoS1PublishIsAcknowledgedAndARetainedOneSeenByALaterSubscriber() async throws {
    let rig = try Rig()
    let (directory, broker, topics) = (rig.directory, rig.broker, rig.topics)
    let publisher = try rig.publisher("test-publisher")
    let live = try MosquittoSubscriber(port: broker.port, filter: "mt/#", in: directory)
    try await publisher.publish(
      topic: topics.missionEvents("M-1"), payload: Array(#"{"seq":1}"#.utf8), retain: false)
    try await publisher.publish(
      topic: topics.missionState("M-1"), payload: Array(#"{"state":"active"}"#.utf8),
      retain: true)
    #expect(publisher.isConnected)
    let seen = live.wait(timeout: 60) { $0.contains(#"mt/missions/M-1/state {"state":"active"}"#) }
    #expect(seen.contains(#"mt/missions/M-1/events {"seq":1}"#))
    #expect(seen.contains("mt/status online"))
    // A subscriber that comes later gets the retained state and status, not the event.
    let later = try MosquittoSubscriber(port: broker.port, filter: "mt/#", in: directory)
    let retained = later.wait(timeout: 60) {
      $0.contains(#"mt/missions/M-1/state {"state":"active"}"#) && $0.contains("mt/status online")
    }
    #expect(retained.contains(#"mt/missions/M-1/state {"state":"active"}"#))
    #expect(!retained.contains { $0.hasPrefix("mt/missions/M-1/events") })
  }

  @Test func anEmptyRetainedMessageClearsAWorkersPosition() async throws {
    let rig = try Rig()
    let (directory, broker, topics) = (rig.directory, rig.broker, rig.topics)
    let publisher = try rig.publisher("test-clear")
    try await publisher.publish(
      topic: topics.workerPosition("anna"), payload: Array(#"{"lat":59.3}"#.utf8), retain: true)
    try await publisher.publish(topic: topics.workerPosition("bo"), payload: [1], retain: true)
    try await publisher.publish(topic: topics.workerPosition("anna"), payload: [], retain: true)
    let later = try MosquittoSubscriber(port: broker.port, filter: "mt/workers/#", in: directory)
    let seen = later.wait(timeout: 60) { $0.contains { $0.hasPrefix("mt/workers/bo/") } }
    #expect(seen.contains { $0.hasPrefix("mt/workers/bo/position") })
    #expect(!seen.contains { $0.hasPrefix("mt/workers/anna/") })
  }

  @Test func theLastWillSaysOfflineWhenTheConnectionDiesAndOnlineComesBack() async throws {
    let rig = try Rig()
    let (directory, broker) = (rig.directory, rig.broker)
    let status = try MosquittoSubscriber(port: broker.port, filter: "mt/status", in: directory)
    let publisher = try rig.publisher("test-will")
    #expect(status.wait(timeout: 60) { $0 == ["mt/status online"] } == ["mt/status online"])
    publisher.dropConnectionAbruptly()
    let seen = status.wait(timeout: 60) {
      $0 == ["mt/status online", "mt/status offline", "mt/status online"]
    }
    #expect(seen == ["mt/status online", "mt/status offline", "mt/status online"])
    #expect(await eventually(60) { publisher.connectionCount == 2 })
  }

  @Test func aCleanCloseLeavesOfflineRetained() async throws {
    let rig = try Rig()
    let (directory, broker) = (rig.directory, rig.broker)
    let publisher = try rig.publisher("test-close")
    #expect(await eventually(60) { publisher.isConnected })
    publisher.close()
    let later = try MosquittoSubscriber(port: broker.port, filter: "mt/status", in: directory)
    #expect(later.wait(timeout: 60) { !$0.isEmpty } == ["mt/status offline"])
  }

  /// The broker goes away for a few seconds: messages published meanwhile wait in
  /// libmosquitto, go out after the reconnect, and each publish completes on its PUBACK.
  @Test func messagesPublishedWhileTheBrokerIsDownAreDeliveredAfterItReturns() async throws {
    let rig = try Rig()
    let (directory, broker, topics) = (rig.directory, rig.broker, rig.topics)
    let publisher = try rig.publisher("test-restart")
    try await publisher.publish(topic: topics.missionState("before"), payload: [0x31], retain: true)
    broker.stop()
    #expect(await eventually(60) { !publisher.isConnected })
    // Retained, so a subscriber after the restart sees what reached the (fresh) broker.
    let acknowledged = Counter()
    for index in 0..<20 {
      Task {
        try await publisher.publish(
          topic: topics.missionState("M-\(index)"), payload: Array("\(index)".utf8), retain: true)
        acknowledged.value.withLock { $0 += 1 }
      }
    }
    sleep(3)
    #expect(acknowledged.value.withLock { $0 } == 0)
    try broker.start()
    // The reconnect comes after a back-off of at most 30 s.
    #expect(await eventually(90) { acknowledged.value.withLock { $0 } == 20 })
    let later = try MosquittoSubscriber(
      port: broker.port, filter: "mt/missions/+/state", in: directory)
    let seen = later.wait(timeout: 60) { $0.count >= 20 }
    let expected = Set((0..<20).map { "mt/missions/M-\($0)/state \($0)" })
    #expect(expected.isSubset(of: Set(seen)))
    #expect(publisher.connectionCount == 2)
  }

  @Test func aTopicWithAWildcardIsRefusedInOneLine() async throws {
    let rig = try Rig()
    let publisher = try rig.publisher("test-wildcard")
    await #expect {
      try await publisher.publish(topic: "mt/+/events", payload: [1], retain: false)
    } throws: { error in
      let text = String(describing: error)
      return text.contains("mt/+/events") && text.contains(rig.broker.url) && !text.contains("\n")
    }
  }

  /// Closing while the broker is away returns at once, and a publish still waiting fails.
  @Test func closeWhileTheBrokerIsAwayEndsWaitingPublishes() async throws {
    let port = try MosquittoBroker.freePort()
    let publisher = try MQTTPublisher(
      broker: MQTTBrokerAddress(host: "127.0.0.1", port: port), clientID: "test-away",
      topics: try MQTTTopics(prefix: "mt"))
    let waiting = Task {
      try await publisher.publish(topic: "mt/missions/M/events", payload: [1], retain: false)
    }
    try await Task.sleep(for: .milliseconds(300))
    let start = Date()
    publisher.close()
    #expect(Date().timeIntervalSince(start) < 5)
    await #expect(throws: DeliveryError.self) { try await waiting.value }
    #expect(!publisher.isConnected)
  }

  @Test func aHostThatDoesNotResolveIsAOneLineError() {
    #expect {
      _ = try MQTTPublisher(
        broker: MQTTBrokerAddress(host: "no-such-host.invalid", port: 1_883), clientID: "x",
        topics: try MQTTTopics())
    } throws: { error in
      let text = String(describing: error)
      return text.contains("mqtt://no-such-host.invalid:1883") && !text.contains("\n")
    }
  }
}

/// A count shared by tasks.
private final class Counter: Sendable {
  let value = Mutex(0)
}
