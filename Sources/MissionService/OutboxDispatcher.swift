import Delivery
import Foundation
import MissionCatalog
import MissionTracking

/// Sends the store's event log out to every webhook and to MQTT (DESIGN §9): each consumer
/// is a cursor over the log that moves only after a hand-over (a webhook's 2xx or dead
/// event, MQTT's PUBACK), stored in `delivery_cursors`, so a restart resumes after it and
/// may repeat an event, never lose one.
///
/// One pass reads the committed events after the slowest webhook's read position (once for
/// all webhooks, each event's body encoded once) and hands each webhook its matching events
/// (`WebhookDelivery`: signing, per-mission order, retries, dead, 410); the events it skips
/// let its cursor pass them. A pass runs when the engine published events (they are
/// committed by then, or at the latest with their group commit, which the next poll sees)
/// and every `pollIntervalSeconds` (events written by another process). The webhooks and
/// the claims are read again at those polls and when this service changed a webhook, not
/// for the engine's events: those come in a stream (one pass per group of phones'
/// positions), and reading the webhooks for each was a read transaction on the connection
/// the server threads read with too (with theirs, a tenth of `serve`'s rate for single
/// OsmAnd positions: docs/benchmarks.md, 2026-12-05). A webhook that
/// holds many undelivered events is not fed until it catches up (its receiver is slow or
/// down): memory follows `maximumHeld`, not the log.
///
/// Several `serve` nodes on one PostgreSQL database share the delivery (DESIGN §10): a node
/// runs a consumer (a webhook, MQTT) only while it holds the consumer's claim
/// (`ConsumerClaims`), renewed before each move of its cursor; when another node took the
/// claim, the run stops, and what it did not store, the other node sends again.
actor OutboxDispatcher {
  /// One webhook's run.
  private struct Consumer {
    var webhook: Webhook
    var delivery: WebhookDelivery
    /// Events up to here were given to `delivery` (or skipped).
    var readThrough: Int64
    /// Dead events after the cursor: not tried again by this run.
    var dead: Set<Int64>
  }

  private let database: any ServiceStore
  private let configuration: OutboxConfiguration
  /// Shared with the deliveries' reports and with MQTT.
  let ledger = OutboxLedger()
  private let mqtt: MQTTOutbox?
  private var consumers: [String: Consumer] = [:]
  private var claims: ConsumerClaims
  private var client: HTTPClient?
  private var generation = 0
  private var closed = false
  /// Set by a poll and by a change this service made to the webhooks: the next pass reads
  /// the webhooks and the claims again (`startAndStopConsumers`).
  private var recheckConsumers = true
  private let wakes: AsyncStream<Void>
  private let wakeUp: AsyncStream<Void>.Continuation
  /// Events read per pass.
  let pageSize = 1_000
  /// A webhook holding this many undelivered events is not fed more.
  let maximumHeld = 20_000

  /// A dispatcher over `database` (either store); connects to the MQTT broker of
  /// `configuration` when set.
  /// - Throws: `ServiceError.invalid` for a bad broker URL or topic prefix.
  init(database: any ServiceStore, configuration: OutboxConfiguration) throws {
    self.database = database
    claims = ConsumerClaims(database: database)
    self.configuration = configuration
    (wakes, wakeUp) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    if let broker = configuration.mqttBroker {
      do {
        mqtt = try MQTTOutbox(
          database: database, broker: try MQTTBrokerAddress(url: broker),
          topics: try MQTTTopics(prefix: configuration.mqttPrefix), ledger: ledger,
          log: configuration.log)
      } catch {
        throw ServiceError.invalid("--mqtt \(broker): \(error)")
      }
    } else {
      mqtt = nil
    }
  }

  /// Stores the webhooks of `serve --webhook`: one found by its URL (origin `flag`) is kept
  /// (its secret replaced when a secret is given), a new one is added.
  /// - Returns: the secrets made for new webhooks without a secret file, by URL (printed
  ///   once on stderr).
  nonisolated func installFlagWebhooks() throws -> [(url: String, secret: String)] {
    var made: [(url: String, secret: String)] = []
    let stored = try database.webhooks().filter(\.fromFlag)
    for flag in configuration.webhooks {
      if let secret = flag.secret {
        do { _ = try WebhookSecret(text: secret) } catch {
          throw ServiceError.invalid("--webhook-secret-file for \(flag.url): \(error)")
        }
      }
      if let existing = stored.first(where: { $0.url == flag.url }) {
        if let secret = flag.secret, secret != existing.secret {
          try database.setWebhookSecret(secret, of: existing.id)
        }
        continue
      }
      let secret: String
      if let given = flag.secret {
        secret = given
      } else {
        secret = try Self.makeSecret()
        made.append((flag.url, secret))
      }
      try database.addWebhook(
        Webhook(id: Webhook.makeID(), url: flag.url, secret: secret, fromFlag: true))
    }
    return made
  }

  /// A new signing secret's text (`whsec_` and 24 random bytes in base64).
  static func makeSecret() throws -> String {
    do { return try WebhookSecret.generate().text } catch {
      throw ServiceError.internalError("cannot make a webhook secret: \(error)")
    }
  }

  /// New events may be in the log.
  nonisolated func wake() {
    wakeUp.yield()
    mqtt?.wake()
  }

  /// Runs passes until `close()`: at each wake-up and every poll interval.
  func run() async {
    let interval = configuration.pollIntervalSeconds
    let ticker = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(interval))
        recheck()
      }
    }
    let mqttRun = mqtt.map { mqtt in Task { await mqtt.run(pollIntervalSeconds: interval) } }
    for await _ in wakes {
      if closed { break }
      await pass()
    }
    ticker.cancel()
    mqttRun?.cancel()
  }

  /// Stops every delivery (outcomes still to come are not recorded: their events are sent
  /// again after a restart), stores the cursors, closes MQTT and releases the claims (another
  /// node takes the consumers over at its next try, without waiting for the lease to end).
  func close() async {
    guard !closed else { return }
    closed = true
    for id in Array(consumers.keys) { await stop(id) }
    storeCursors()
    await mqtt?.close()
    storeCursors()
    do { try claims.releaseAll() } catch {
      configuration.log("releasing the delivery claims: \(error)")
    }
    client?.shutdown()
    wakeUp.finish()
  }

  /// Sends webhook `id` again from event `sequence` on (`POST …/redeliver?from=`), enabling
  /// it when a 410 disabled it.
  /// - Throws: `StoreError.webhookNotFound`; another `StoreError`.
  func redeliver(_ id: String, from sequence: Int64) async throws {
    await stop(id)
    try database.redeliverWebhook(id, from: sequence)
    recheck()
  }

  /// Removes webhook `id`; false when there was none.
  func remove(_ id: String) async throws -> Bool {
    await stop(id)
    defer { recheck() }
    return try database.removeWebhook(id)
  }

  /// The webhooks changed (one was added): pick them up now.
  func reload() { recheck() }

  /// Has the next pass, at once, read the webhooks and the claims again.
  private func recheck() {
    recheckConsumers = true
    wakeUp.yield()
  }

  /// Counts, and each consumer's cursor (stored, or newer and not yet stored), for
  /// `/metrics`.
  func snapshot() -> (counts: OutboxLedger.Counts, cursors: [String: Int64]) {
    var cursors: [String: Int64] = [:]
    for (id, consumer) in consumers {
      cursors[Webhook.consumer(id)] = consumer.readThrough
    }
    storeCursors()
    for id in consumers.keys {
      let name = Webhook.consumer(id)
      if let stored = try? database.deliveryCursor(name) { cursors[name] = stored }
    }
    if let mqtt, let stored = try? database.deliveryCursor(mqtt.consumer) {
      cursors[mqtt.consumer] = stored
    }
    return (ledger.counts, cursors)
  }

  // MARK: - Passes

  private func pass() async {
    storeCursors()
    if recheckConsumers {
      recheckConsumers = false
      do {
        try await startAndStopConsumers()
      } catch {
        recheckConsumers = true
        configuration.log("webhooks: \(error)")
        return
      }
    }
    var ready: [String] = []
    for (id, consumer) in consumers {
      if await consumer.delivery.heldCount < maximumHeld { ready.append(id) }
    }
    guard let from = ready.compactMap({ consumers[$0]?.readThrough }).min() else { return }
    let events: [StoredEvent]
    do {
      events = try database.committedEvents(afterSequence: from, limit: pageSize)
    } catch {
      configuration.log("reading the outbox after \(from): \(error)")
      return
    }
    guard let last = events.last?.sequence else { return }
    let bodies = events.map { Self.outboxEvent($0) }
    for id in ready {
      guard var consumer = consumers[id] else { continue }
      await feed(&consumer, events, bodies)
      consumer.readThrough = max(consumer.readThrough, last)
      consumers[id] = consumer
    }
    if events.count == pageSize { wakeUp.yield() }
  }

  /// Gives `consumer` its matching events after its read position; the others are skipped
  /// (its cursor may pass them).
  private func feed(_ consumer: inout Consumer, _ events: [StoredEvent], _ bodies: [OutboxEvent])
    async
  {
    var run: [OutboxEvent] = []
    var skipThrough: Int64?
    for (stored, body) in zip(events, bodies) where stored.sequence > consumer.readThrough {
      if consumer.webhook.matches(stored.event) && !consumer.dead.contains(stored.sequence) {
        if let seq = skipThrough {
          await consumer.delivery.skip(through: seq)
          skipThrough = nil
        }
        run.append(body)
      } else {
        if !run.isEmpty {
          await consumer.delivery.enqueue(run)
          run = []
        }
        skipThrough = stored.sequence
      }
    }
    if !run.isEmpty { await consumer.delivery.enqueue(run) }
    if let seq = skipThrough { await consumer.delivery.skip(through: seq) }
  }

  /// Starts a run for each enabled webhook without one whose claim this node holds; stops
  /// the runs of webhooks removed, disabled or changed, and of those another node took;
  /// lets MQTT publish while this node holds its claim.
  private func startAndStopConsumers() async throws {
    let enabled = try database.webhooks().filter { $0.disabledReason == nil }
    let byID = Dictionary(enabled.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
    for (id, consumer) in consumers where byID[id] != consumer.webhook {
      await stop(id)
    }
    for id in Array(consumers.keys) {
      // Another node delivers it now, from the stored cursor.
      if try !claims.holds(Webhook.consumer(id)) { await stop(id, storingCursor: false) }
    }
    for webhook in enabled where consumers[webhook.id] == nil {
      if try claims.holds(Webhook.consumer(webhook.id)) { try start(webhook) }
    }
    if let mqtt { try await mqtt.setClaimed(try claims.holds(mqtt.consumer)) }
  }

  private func start(_ webhook: Webhook) throws {
    let name = Webhook.consumer(webhook.id)
    let secret: WebhookSecret
    do { secret = try WebhookSecret(text: webhook.secret) } catch {
      throw ServiceError.invalid("webhook \(webhook.id): \(error)")
    }
    let client: HTTPClient
    if let existing = self.client {
      client = existing
    } else {
      do { client = try HTTPClient() } catch {
        throw ServiceError.internalError("the webhook HTTP client: \(error)")
      }
      self.client = client
    }
    let cursor = try database.deliveryCursor(name) ?? database.lastCommittedSequence()
    generation += 1
    let run = generation
    ledger.begin(name, generation: run)
    let report = Self.report(
      webhook: webhook.id, generation: run, database: database, ledger: ledger,
      started: ContinuousClock.now, configuration: configuration)
    let delivery = WebhookDelivery(
      endpoint: .init(url: webhook.url, secret: secret), cursor: cursor, client: client,
      schedule: RetrySchedule.standard.scaled(by: configuration.retryTimeScale), report: report)
    consumers[webhook.id] = Consumer(
      webhook: webhook, delivery: delivery, readThrough: cursor,
      dead: try database.deadDeliveries(ofWebhook: webhook.id, after: cursor))
  }

  /// Stops webhook `id`'s run and stores the cursor it reached, unless `storingCursor` is
  /// false (the claim went to another node).
  private func stop(_ id: String, storingCursor: Bool = true) async {
    guard let consumer = consumers.removeValue(forKey: id) else { return }
    await consumer.delivery.stop()
    let name = Webhook.consumer(id)
    if let seq = ledger.end(name), storingCursor {
      store([name: seq])
    }
  }

  /// Stores the cursor moves of the ledger.
  private func storeCursors() { store(ledger.takeMoves()) }

  /// Stores `taken` (consumer → seq), each consumer's claim renewed first: the move of a
  /// consumer another node took is dropped (that node may send those events again). Put
  /// back in the ledger when the store refuses.
  private func store(_ taken: [String: Int64]) {
    guard !taken.isEmpty else { return }
    do {
      var moves: [String: Int64] = [:]
      for (consumer, seq) in taken {
        if try claims.renew(consumer) { moves[consumer] = seq }
      }
      if !moves.isEmpty { try database.advanceDeliveryCursors(moves) }
    } catch {
      ledger.restore(taken)
      configuration.log("storing delivery cursors: \(error)")
    }
  }

  /// What a webhook's delivery reports becomes rows and counts. Runs on the delivery's
  /// actor; a failure to record a failed attempt is logged (the event is still retried).
  private static func report(
    webhook id: String, generation: Int, database: any ServiceStore, ledger: OutboxLedger,
    started: ContinuousClock.Instant, configuration: OutboxConfiguration
  ) -> @Sendable (WebhookDispatcher.Action) -> Void {
    let name = Webhook.consumer(id)
    return { action in
      do {
        switch action {
        case .delivered(let seq, let attempt):
          ledger.count { $0.delivered += 1 }
          if attempt > 1 { try database.noteDelivered(webhook: id, sequence: seq) }
        case .retryLater(let seq, let attempt, let reason, let atSeconds):
          ledger.count { $0.failed += 1 }
          // `atSeconds` counts from the delivery's start, which is `started`.
          let elapsed = started.duration(to: .now)
          let seconds =
            Double(elapsed.components.seconds)
            + Double(elapsed.components.attoseconds) * 1e-18
          try database.noteDeliveryFailure(
            webhook: id, sequence: seq, attempts: attempt, error: reason,
            nextAttempt: Date().addingTimeInterval(max(0, atSeconds - seconds)))
        case .dead(let seq, let attempts, let reason):
          ledger.count {
            $0.failed += 1
            $0.dead += 1
          }
          try database.noteDeliveryFailure(
            webhook: id, sequence: seq, attempts: attempts, error: reason, nextAttempt: nil)
        case .advanceCursor(let seq):
          ledger.move(name, generation: generation, to: seq)
        case .disable(let reason):
          ledger.count { $0.gone += 1 }
          try database.disableWebhook(id, reason: reason)
        case .send, .wake:
          break
        }
      } catch {
        configuration.log("webhook \(id): \(error)")
      }
    }
  }

  /// An event as it is delivered: its JSON object with `"seq"` first.
  static func outboxEvent(_ stored: StoredEvent) -> OutboxEvent {
    OutboxEvent(
      seq: stored.sequence, missionID: stored.missionID, body: body(of: stored))
  }

  /// The event's JSON object with `"seq"` as its first member.
  static func body(of stored: StoredEvent) -> [UInt8] {
    var body = Array("{\"seq\":\(stored.sequence)".utf8)
    let line = stored.jsonLine.utf8.dropFirst()
    if line.first != UInt8(ascii: "}") { body.append(UInt8(ascii: ",")) }
    body.append(contentsOf: line)
    return body
  }
}
