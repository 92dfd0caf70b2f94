import Delivery
import Foundation
import MissionStore
import MissionTracking

/// The MQTT consumer of the outbox (DESIGN §9): every committed event, in `seq` order, to
/// the broker at QoS 1, its cursor (`mqtt:PREFIX`) moving once the broker acknowledged
/// (PUBACK) every message of the event.
///
/// Per event: `PREFIX/missions/{id}/events` (not retained, the event with `seq`); for a
/// `state` event the mission object on `PREFIX/missions/{id}/state` (retained); for a `fix`
/// the event on `PREFIX/workers/{w}/position` (retained), cleared with an empty retained
/// message when the worker's mission leaves tracking. `MQTTPublisher` keeps `PREFIX/status`
/// (`online`, and `offline` as the last will). While the broker is away a publish waits for
/// its PUBACK, so the cursor stays and nothing is lost; a kill before the PUBACK repeats
/// the event after the restart.
actor MQTTOutbox {
  private let database: MissionDatabase
  private let publisher: MQTTPublisher
  private let topics: MQTTTopics
  private let ledger: OutboxLedger
  /// The cursor's name.
  nonisolated let consumer: String
  private var cursor: Int64
  private let wakes: AsyncStream<Void>
  private let wakeUp: AsyncStream<Void>.Continuation
  /// Events read at a time.
  let pageSize = 500

  /// Connects to `broker` (in the background: a broker that is down is retried).
  /// - Throws: `DeliveryError` when the client cannot be made.
  init(
    database: MissionDatabase, broker: MQTTBrokerAddress, topics: MQTTTopics, ledger: OutboxLedger
  ) throws {
    self.database = database
    self.topics = topics
    self.ledger = ledger
    consumer = "mqtt:" + topics.prefix
    publisher = try MQTTPublisher(
      broker: broker, clientID: "missiontrack-\(ProcessInfo.processInfo.processIdentifier)",
      topics: topics)
    (wakes, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    // A first run starts at the end of the log as it is now (stored at once): the broker is
    // told of what happens from the start of this service on, not of the whole history.
    if let stored = try database.deliveryCursor(consumer) {
      cursor = stored
    } else {
      let end = try database.lastCommittedSequence()
      try database.advanceDeliveryCursors([consumer: end])
      cursor = end
    }
    ledger.begin(consumer, generation: 0)
  }

  /// New events may be in the log.
  nonisolated func wake() { wakeUp.yield() }

  /// Publishes until cancelled or closed: at each wake-up and every poll interval.
  func run(pollIntervalSeconds: Double) async {
    let wakeUp = self.wakeUp
    let ticker = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(pollIntervalSeconds))
        wakeUp.yield()
      }
    }
    for await _ in wakes {
      if Task.isCancelled { break }
      await pass()
    }
    ticker.cancel()
  }

  /// Publishes `offline`, disconnects and stops.
  func close() {
    wakeUp.finish()
    publisher.close()
  }

  private func pass() async {
    do {
      var cursor = self.cursor
      while true {
        let events = try database.committedEvents(afterSequence: cursor, limit: pageSize)
        for stored in events {
          try await publish(stored)
          ledger.count { $0.published += 1 }
          cursor = stored.sequence
          self.cursor = cursor
          ledger.move(consumer, generation: 0, to: cursor)
        }
        if events.count < pageSize { break }
      }
    } catch {
      OutboxDispatcher.log("MQTT: \(error)")
    }
  }

  private func publish(_ stored: StoredEvent) async throws {
    let event = stored.event
    let body = OutboxDispatcher.body(of: stored)
    try await publisher.publish(
      topic: topics.missionEvents(event.missionID), payload: body, retain: false)
    switch event.kind {
    case .state(_, let to):
      if let mission = try database.mission(id: event.missionID) {
        try await publisher.publish(
          topic: topics.missionState(event.missionID), payload: Array(mission.jsonObject.utf8),
          retain: true)
      }
      if to != .active && to != .arrived, let worker = event.workerID {
        try await publisher.publish(topic: topics.workerPosition(worker), payload: [], retain: true)
      }
    case .fix:
      if let worker = event.workerID {
        try await publisher.publish(
          topic: topics.workerPosition(worker), payload: body, retain: true)
      }
    default:
      break
    }
  }
}
