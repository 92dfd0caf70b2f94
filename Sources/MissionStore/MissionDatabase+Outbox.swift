import Foundation
import MissionCatalog
import MissionFiles
import MissionTracking
import TextRules

/// The event log as an outbox (DESIGN §9, schema version 8): webhooks, each consumer's
/// cursor, and the deliveries that failed. The dispatcher reads committed events, hands them
/// over, and moves a consumer's cursor only after the hand-over. `OutboxStore`'s SQLite form.
extension MissionDatabase: OutboxStore {
  /// Committed events after `afterSequence`, in order, at most `limit`.
  ///
  /// Unlike `events(…)`, this does not commit the writer's pending group first: an event is
  /// in the outbox once its transaction committed, and a reader of the outbox never forces
  /// the writer's commit.
  package func committedEvents(afterSequence: Int64, limit: Int) throws -> [StoredEvent] {
    try withCommittedReader { connection in
      let select = try connection.cached(
        "SELECT \(Self.eventColumns) WHERE e.seq > :after ORDER BY e.seq LIMIT :limit")
      defer { select.reset() }
      try select.bind(["after": afterSequence, "limit": Int64(limit)])
      let columns = try EventColumns(select)
      var events: [StoredEvent] = []
      while try select.step() { events.append(storedEvent(from: select, columns)) }
      return events
    }
  }

  /// The highest committed `seq` (0 for an empty log), without committing pending events.
  package func lastCommittedSequence() throws -> Int64 {
    try withCommittedReader { connection in
      try connection.integer("SELECT coalesce(max(seq), 0) FROM events") ?? 0
    }
  }

  /// The time of the committed event just after `sequence`, nil when there is none: the
  /// oldest event a consumer at cursor `sequence` has not handed over.
  package func timeOfEvent(after sequence: Int64) throws -> Date? {
    try withCommittedReader { connection in
      let select = try connection.cached(
        "SELECT time_us FROM events WHERE seq > :after ORDER BY seq LIMIT 1")
      defer { select.reset() }
      try select.bind(["after": sequence])
      guard try select.step() else { return nil }
      return date(microseconds: try select.int64("time_us"))
    }
  }

  // MARK: - Webhooks

  /// Every webhook, oldest first.
  package func webhooks() throws -> [Webhook] {
    try withCommittedReader { connection in
      let select = try connection.cached(
        """
        SELECT id, url, events, mission_id, worker_id, secret, created_us, disabled, origin
        FROM webhooks ORDER BY created_us, id
        """)
      defer { select.reset() }
      var webhooks: [Webhook] = []
      while try select.step() {
        webhooks.append(
          Webhook(
            id: try select.string("id") ?? "", url: try select.string("url") ?? "",
            eventTypes: Webhook.eventTypes(stored: try select.string("events")),
            missionID: try select.string("mission_id"), workerID: try select.string("worker_id"),
            secret: try select.string("secret") ?? "",
            created: date(microseconds: try select.int64("created_us")),
            disabledReason: try select.string("disabled"),
            fromFlag: try select.string("origin") == "flag"))
      }
      return webhooks
    }
  }

  /// Webhook `id`, nil when there is none.
  package func webhook(_ id: String) throws -> Webhook? {
    try webhooks().first { $0.id == id }
  }

  /// Adds `webhook`; its cursor starts at the end of the log (it is sent the events that
  /// come after it was added).
  /// - Throws: `StoreError.invalidWebhook` for a bad URL, type or id; another `StoreError`.
  package func addWebhook(_ webhook: Webhook) throws {
    if let problem = webhook.storageProblem { throw StoreError.invalidWebhook(problem) }
    try withConnection { connection in
      try commitPendingLocked(connection)
      try connection.transaction {
        let insert = try connection.cached(
          """
          INSERT INTO webhooks (id, url, events, mission_id, worker_id, secret, created_us,
            disabled, origin)
          VALUES (:id, :url, :events, :mission, :worker, :secret, :created, NULL, :origin)
          """)
        try insert.bind([
          "id": webhook.id, "url": webhook.url,
          "events": webhook.storedEventTypes,
          "mission": webhook.missionID.map(MissionID.normalized),
          "worker": webhook.workerID.map(Identifier.normalized), "secret": webhook.secret,
          "created": microseconds(webhook.created), "origin": webhook.fromFlag ? "flag" : "api",
        ])
        try insert.run()
        let cursor = try connection.cached(
          """
          INSERT INTO delivery_cursors (consumer, seq)
          SELECT :consumer, coalesce(max(seq), 0) FROM events WHERE true
          ON CONFLICT (consumer) DO UPDATE SET seq = excluded.seq
          """)
        try cursor.bind(["consumer": Webhook.consumer(webhook.id)])
        try cursor.run()
      }
    }
  }

  /// Replaces the secret of webhook `id` (`serve --webhook` with a new secret file).
  package func setWebhookSecret(_ secret: String, of id: String) throws {
    try withConnection { connection in
      let update = try connection.cached("UPDATE webhooks SET secret = :secret WHERE id = :id")
      try update.bind(["secret": secret, "id": id])
      try update.run()
    }
  }

  /// Removes webhook `id`, its cursor and its deliveries; false when there was none.
  package func removeWebhook(_ id: String) throws -> Bool {
    try withConnection { connection in
      try connection.transaction {
        let delete = try connection.cached("DELETE FROM webhooks WHERE id = :id")
        try delete.bind(["id": id])
        try delete.run()
        let removed = connection.changes > 0
        let cursor = try connection.cached(
          "DELETE FROM delivery_cursors WHERE consumer = :consumer")
        try cursor.bind(["consumer": Webhook.consumer(id)])
        try cursor.run()
        return removed
      }
    }
  }

  /// Disables webhook `id` for `reason` (its receiver answered `410 Gone`).
  package func disableWebhook(_ id: String, reason: String) throws {
    try withConnection { connection in
      let update = try connection.cached("UPDATE webhooks SET disabled = :reason WHERE id = :id")
      try update.bind(["reason": reason, "id": id])
      try update.run()
    }
  }

  /// Redelivers webhook `id` from event `sequence` on: its cursor goes back to just before
  /// it, its failed and dead deliveries from there are forgotten (they are attempted
  /// afresh) and the webhook is enabled again.
  /// - Throws: `StoreError.webhookNotFound`; another `StoreError`.
  package func redeliverWebhook(_ id: String, from sequence: Int64) throws {
    try withConnection { connection in
      try connection.transaction {
        let enable = try connection.cached("UPDATE webhooks SET disabled = NULL WHERE id = :id")
        try enable.bind(["id": id])
        try enable.run()
        guard connection.changes > 0 else { throw StoreError.webhookNotFound(id) }
        let cursor = try connection.cached(
          """
          INSERT INTO delivery_cursors (consumer, seq) VALUES (:consumer, :seq)
          ON CONFLICT (consumer) DO UPDATE SET seq = min(seq, excluded.seq)
          """)
        try cursor.bind(["consumer": Webhook.consumer(id), "seq": max(0, sequence - 1)])
        try cursor.run()
        let forget = try connection.cached(
          "DELETE FROM deliveries WHERE webhook_id = :id AND seq >= :seq")
        try forget.bind(["id": id, "seq": sequence])
        try forget.run()
      }
    }
  }

  // MARK: - Cursors

  /// Consumer `consumer`'s cursor, nil when it has none yet.
  package func deliveryCursor(_ consumer: String) throws -> Int64? {
    try withConnection { connection in
      let select = try connection.cached(
        "SELECT seq FROM delivery_cursors WHERE consumer = :consumer")
      defer { select.reset() }
      try select.bind(["consumer": consumer])
      guard try select.step() else { return nil }
      return try select.int64("seq")
    }
  }

  /// Moves the cursors in `cursors` (consumer → seq) forward in one transaction; a cursor
  /// never moves back here (a redelivery moves it back on purpose).
  package func advanceDeliveryCursors(_ cursors: [String: Int64]) throws {
    guard !cursors.isEmpty else { return }
    try withConnection { connection in
      try connection.transaction {
        let update = try connection.cached(
          """
          INSERT INTO delivery_cursors (consumer, seq) VALUES (:consumer, :seq)
          ON CONFLICT (consumer) DO UPDATE SET seq = max(seq, excluded.seq)
          """)
        for (consumer, seq) in cursors.sorted(by: { $0.key < $1.key }) {
          try update.bind(["consumer": consumer, "seq": seq])
          try update.run()
        }
      }
    }
  }

  // MARK: - Deliveries

  /// Records that event `sequence` of webhook `id` failed attempt `attempts` with `error`:
  /// retried at `nextAttempt`, or dead when that is nil.
  package func noteDeliveryFailure(
    webhook id: String, sequence: Int64, attempts: Int, error: String, nextAttempt: Date?
  ) throws {
    try withConnection { connection in
      let upsert = try connection.cached(
        """
        INSERT INTO deliveries (webhook_id, seq, state, attempts, next_attempt_us, last_error,
          updated_us)
        VALUES (:id, :seq, :state, :attempts, :next, :error, :now)
        ON CONFLICT (webhook_id, seq) DO UPDATE SET state = excluded.state,
          attempts = excluded.attempts, next_attempt_us = excluded.next_attempt_us,
          last_error = excluded.last_error, updated_us = excluded.updated_us
        """)
      try upsert.bind([
        "id": id, "seq": sequence, "state": nextAttempt == nil ? "dead" : "failed",
        "attempts": Int64(attempts), "next": nextAttempt.map(microseconds),
        "error": TextRules.oneLine(error, limit: 500), "now": microseconds(Date()),
      ])
      try upsert.run()
    }
  }

  /// Forgets the failures of event `sequence` of webhook `id`: it was delivered.
  package func noteDelivered(webhook id: String, sequence: Int64) throws {
    try withConnection { connection in
      let delete = try connection.cached(
        "DELETE FROM deliveries WHERE webhook_id = :id AND seq = :seq")
      try delete.bind(["id": id, "seq": sequence])
      try delete.run()
    }
  }

  /// The recorded deliveries of webhook `id` in `state` (`failed` or `dead`), oldest first,
  /// at most `limit`.
  package func deliveries(
    ofWebhook id: String, state: WebhookDeliveryRecord.State, limit: Int = 1_000
  ) throws -> [WebhookDeliveryRecord] {
    try withConnection { connection in
      let select = try connection.cached(
        """
        SELECT seq, state, attempts, next_attempt_us, last_error FROM deliveries
        WHERE webhook_id = :id AND state = :state ORDER BY seq LIMIT :limit
        """)
      defer { select.reset() }
      try select.bind(["id": id, "state": state.rawValue, "limit": Int64(limit)])
      var records: [WebhookDeliveryRecord] = []
      while try select.step() {
        records.append(
          WebhookDeliveryRecord(
            webhookID: id, sequence: try select.int64("seq"), state: state,
            attempts: Int(try select.int64("attempts")),
            nextAttempt: try select.optionalInt64("next_attempt_us").map(date(microseconds:)),
            lastError: try select.string("last_error")))
      }
      return records
    }
  }

  /// The `seq`s of webhook `id`'s dead deliveries after `sequence` (a restart does not try
  /// them again).
  package func deadDeliveries(ofWebhook id: String, after sequence: Int64) throws -> Set<Int64> {
    try withConnection { connection in
      let select = try connection.cached(
        "SELECT seq FROM deliveries WHERE webhook_id = :id AND state = 'dead' AND seq > :after")
      defer { select.reset() }
      try select.bind(["id": id, "after": sequence])
      var dead: Set<Int64> = []
      while try select.step() { dead.insert(try select.int64("seq")) }
      return dead
    }
  }

  /// How many dead deliveries each webhook has.
  package func deadDeliveryCounts() throws -> [String: Int] {
    try withConnection { connection in
      let select = try connection.cached(
        "SELECT webhook_id, count(*) AS n FROM deliveries WHERE state = 'dead' GROUP BY webhook_id"
      )
      defer { select.reset() }
      var counts: [String: Int] = [:]
      while try select.step() {
        let id = try select.string("webhook_id") ?? ""
        counts[id] = Int(try select.int64("n"))
      }
      return counts
    }
  }
}
