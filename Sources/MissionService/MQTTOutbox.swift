import Delivery
import Foundation
import MissionCatalog
import MissionTracking

/// The MQTT consumer of the outbox (DESIGN §9): every committed event, in `seq` order, to
/// the broker at QoS 1 through `MQTTDelivery` (pipelined: many messages in flight, its
/// cursor `mqtt:PREFIX` moving once the broker acknowledged every event up to it).
///
/// Per event: `PREFIX/missions/{id}/events` (not retained, the event with `seq`); for a
/// `state` event the mission object on `PREFIX/missions/{id}/state` (retained); for a `fix`
/// the event on `PREFIX/workers/{w}/position` (retained), cleared with an empty retained
/// message when the worker's mission leaves tracking. The retained topics are the latest
/// value, not a log: they are handed to libmosquitto right after their event, in the same
/// order. `MQTTPublisher` keeps `PREFIX/status` (`online`, and `offline` as the last will).
/// While the broker is away messages wait in libmosquitto's queue and the cursor stays, so
/// nothing is lost; a kill before the PUBACK repeats the event after the restart.
///
/// It publishes only while its node holds the consumer's claim (`setClaimed`, from the
/// outbox dispatcher), so that one of several nodes on one database publishes each event.
actor MQTTOutbox {
  private let database: any ServiceStore
  private let publisher: MQTTPublisher
  /// The delivery of the current claim; nil while another node holds it.
  private var delivery: MQTTDelivery?
  /// Counts the claims taken, so that a lost claim's late acknowledgements are ignored.
  private var generation = 0
  private let topics: MQTTTopics
  private let ledger: OutboxLedger
  /// Where a failed pass is reported, one line.
  private let log: @Sendable (String) -> Void
  /// The cursor's name.
  nonisolated let consumer: String
  /// Events up to here were handed to `delivery`.
  private var readThrough: Int64
  private let wakes: AsyncStream<Void>
  private let wakeUp: AsyncStream<Void>.Continuation
  /// Events read at a time.
  let pageSize = 1_000
  /// Not more are read while this many wait for their PUBACK (a broker that is away).
  let maximumHeld = 20_000

  /// Connects to `broker` (in the background: a broker that is down is retried).
  /// - Throws: `DeliveryError` when the client cannot be made; a `StoreError`.
  init(
    database: any ServiceStore, broker: MQTTBrokerAddress, topics: MQTTTopics,
    ledger: OutboxLedger, log: @escaping @Sendable (String) -> Void
  ) throws {
    self.log = log
    self.database = database
    self.topics = topics
    self.ledger = ledger
    let consumer = "mqtt:" + topics.prefix
    self.consumer = consumer
    let publisher = try MQTTPublisher(
      broker: broker, clientID: "missiontrack-\(ProcessInfo.processInfo.processIdentifier)",
      topics: topics)
    self.publisher = publisher
    (wakes, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    // A first run starts at the end of the log as it is now (stored at once): the broker is
    // told of what happens from the start of this service on, not of the whole history.
    let cursor: Int64
    if let stored = try database.deliveryCursor(consumer) {
      cursor = stored
    } else {
      cursor = try database.lastCommittedSequence()
      try database.advanceDeliveryCursors([consumer: cursor])
    }
    readThrough = cursor
  }

  /// Publishes while `held`: a claim taken resumes after the stored cursor; a claim lost
  /// stops the reading (what is in flight may still reach the broker, and the node that
  /// took the claim sends it again: at least once).
  /// - Throws: a store error reading the cursor.
  func setClaimed(_ held: Bool) throws {
    guard held != (delivery != nil) else { return }
    guard held else {
      delivery = nil
      _ = ledger.end(consumer)
      return
    }
    readThrough = try database.deliveryCursor(consumer) ?? readThrough
    generation += 1
    let (ledger, consumer, generation) = (self.ledger, self.consumer, self.generation)
    ledger.begin(consumer, generation: generation)
    delivery = MQTTDelivery(publisher: publisher, cursor: readThrough) { seq in
      ledger.move(consumer, generation: generation, to: seq)
    }
    wakeUp.yield()
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
    guard let delivery else { return }
    do {
      while await delivery.heldCount < maximumHeld {
        let events = try database.committedEvents(afterSequence: readThrough, limit: pageSize)
        // One hand-over for the page; each event's retained topics follow it.
        await delivery.enqueue(events.map(OutboxDispatcher.outboxEvent))
        for stored in events {
          try publishRetained(stored)
          readThrough = stored.sequence
        }
        ledger.count { $0.published += events.count }
        if events.count < pageSize { break }
      }
    } catch {
      log("MQTT: \(error)")
    }
  }

  /// The retained topics `stored` changes, handed over after its event.
  private func publishRetained(_ stored: StoredEvent) throws {
    let event = stored.event
    switch event.kind {
    case .state(_, let to):
      if let mission = try database.mission(id: event.missionID) {
        publisher.publish(
          topic: topics.missionState(event.missionID), payload: Array(mission.jsonObject.utf8),
          retain: true
        ) { _ in }
      }
      if to != .active && to != .arrived, let worker = event.workerID {
        publisher.publish(topic: topics.workerPosition(worker), payload: [], retain: true) { _ in }
      }
    case .fix:
      if let worker = event.workerID {
        publisher.publish(
          topic: topics.workerPosition(worker), payload: OutboxDispatcher.body(of: stored),
          retain: true
        ) { _ in }
      }
    default:
      break
    }
  }
}
