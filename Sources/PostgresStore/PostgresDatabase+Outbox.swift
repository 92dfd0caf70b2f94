import Foundation
import MissionCatalog
import MissionFiles
import TextRules

/// The event log as an outbox (DESIGN §9) on PostgreSQL (schema version 3): webhooks, each
/// consumer's cursor and the deliveries that failed, with the SQLite store's answers.
/// `committedEvents` and `lastCommittedSequence` are `ServiceStore`'s
/// (`PostgresDatabase+ServiceStore.swift`): events are appended in commit order (schema
/// version 3), so none with a lower `seq` commits after a higher one was read.
extension PostgresDatabase: OutboxStore {
  /// The time of the committed event just after `sequence`, nil when there is none.
  package func timeOfEvent(after sequence: Int64) throws -> Date? {
    try withConnection { connection in
      try connection.query(
        "SELECT mt_us(time) AS time_us FROM events WHERE seq > :after ORDER BY seq LIMIT 1",
        ["after": sequence]
      ).int64(0, "time_us").map(Self.date(microseconds:))
    }
  }

  // MARK: - Webhooks

  /// Every webhook, oldest first, ties by id in code point order.
  package func webhooks() throws -> [Webhook] {
    try webhooks(id: nil)
  }

  /// Webhook `id`, nil when there is none.
  package func webhook(_ id: String) throws -> Webhook? {
    try webhooks(id: id).first
  }

  /// Adds `webhook` with its cursor at the end of the log, in one transaction.
  /// - Throws: `WebhookRefusal.invalidWebhook` for a bad URL, type or id; `PostgresError`.
  package func addWebhook(_ webhook: Webhook) throws {
    if let problem = webhook.storageProblem { throw WebhookRefusal.invalidWebhook(problem) }
    try withConnection { connection in
      try connection.transaction {
        try connection.query(
          """
          INSERT INTO webhooks (id, url, events, mission_id, worker_id, secret, created,
            disabled, origin)
          VALUES (:id, :url, :events, :mission, :worker, :secret, mt_time(:created), NULL,
            :origin)
          """,
          [
            "id": webhook.id, "url": webhook.url, "events": webhook.storedEventTypes,
            "mission": webhook.missionID.map(MissionID.normalized),
            "worker": webhook.workerID.map(Identifier.normalized), "secret": webhook.secret,
            "created": Self.microseconds(webhook.created),
            "origin": webhook.fromFlag ? "flag" : "api",
          ])
        try connection.query(
          """
          INSERT INTO delivery_cursors (consumer, seq)
          SELECT :consumer, coalesce(max(seq), 0) FROM events
          ON CONFLICT (consumer) DO UPDATE SET seq = excluded.seq
          """, ["consumer": Webhook.consumer(webhook.id)])
      }
    }
  }

  /// Replaces the secret of webhook `id`.
  package func setWebhookSecret(_ secret: String, of id: String) throws {
    try withConnection { connection in
      _ = try connection.query(
        "UPDATE webhooks SET secret = :secret WHERE id = :id", ["secret": secret, "id": id])
    }
  }

  /// Removes webhook `id`, its cursor (and so its claim) and its deliveries; false when
  /// there was none.
  package func removeWebhook(_ id: String) throws -> Bool {
    try withConnection { connection in
      try connection.transaction {
        let removed =
          try connection.query("DELETE FROM webhooks WHERE id = :id", ["id": id]).affectedRows > 0
        try connection.query(
          "DELETE FROM delivery_cursors WHERE consumer = :consumer",
          ["consumer": Webhook.consumer(id)])
        return removed
      }
    }
  }

  /// Disables webhook `id` for `reason`.
  package func disableWebhook(_ id: String, reason: String) throws {
    try withConnection { connection in
      _ = try connection.query(
        "UPDATE webhooks SET disabled = :reason WHERE id = :id", ["reason": reason, "id": id])
    }
  }

  /// Redelivers webhook `id` from event `sequence` on, in one transaction.
  /// - Throws: `WebhookRefusal.webhookNotFound`; `PostgresError`.
  package func redeliverWebhook(_ id: String, from sequence: Int64) throws {
    try withConnection { connection in
      try connection.transaction {
        let enabled = try connection.query(
          "UPDATE webhooks SET disabled = NULL WHERE id = :id", ["id": id])
        guard enabled.affectedRows > 0 else { throw WebhookRefusal.webhookNotFound(id) }
        try connection.query(
          """
          INSERT INTO delivery_cursors (consumer, seq) VALUES (:consumer, :seq)
          ON CONFLICT (consumer) DO UPDATE SET seq = least(delivery_cursors.seq, excluded.seq)
          """, ["consumer": Webhook.consumer(id), "seq": max(0, sequence - 1)])
        try connection.query(
          "DELETE FROM deliveries WHERE webhook_id = :id AND seq >= :seq",
          ["id": id, "seq": sequence])
      }
    }
  }

  // MARK: - Cursors

  /// Consumer `consumer`'s cursor, nil when it has none yet.
  package func deliveryCursor(_ consumer: String) throws -> Int64? {
    try withConnection { connection in
      try connection.query(
        "SELECT seq FROM delivery_cursors WHERE consumer = :consumer", ["consumer": consumer]
      ).int64(0, "seq")
    }
  }

  /// Moves the cursors in `cursors` forward in one transaction (in consumer order, so two
  /// nodes moving the same cursors never deadlock); a cursor never moves back here.
  package func advanceDeliveryCursors(_ cursors: [String: Int64]) throws {
    guard !cursors.isEmpty else { return }
    try withConnection { connection in
      try connection.transaction {
        for (consumer, seq) in cursors.sorted(by: { $0.key < $1.key }) {
          try connection.query(
            """
            INSERT INTO delivery_cursors (consumer, seq) VALUES (:consumer, :seq)
            ON CONFLICT (consumer) DO UPDATE
              SET seq = greatest(delivery_cursors.seq, excluded.seq)
            """, ["consumer": consumer, "seq": seq])
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
      _ = try connection.query(
        """
        INSERT INTO deliveries (webhook_id, seq, state, attempts, next_attempt, last_error,
          updated)
        VALUES (:id, :seq, :state, :attempts, mt_time(:next), :error, mt_time(:now))
        ON CONFLICT (webhook_id, seq) DO UPDATE SET state = excluded.state,
          attempts = excluded.attempts, next_attempt = excluded.next_attempt,
          last_error = excluded.last_error, updated = excluded.updated
        """,
        [
          "id": id, "seq": sequence, "state": nextAttempt == nil ? "dead" : "failed",
          "attempts": attempts, "next": nextAttempt.map(Self.microseconds),
          "error": oneLine(error, limit: 500), "now": Self.microseconds(Date()),
        ])
    }
  }

  /// Forgets the failures of event `sequence` of webhook `id`: it was delivered.
  package func noteDelivered(webhook id: String, sequence: Int64) throws {
    try withConnection { connection in
      _ = try connection.query(
        "DELETE FROM deliveries WHERE webhook_id = :id AND seq = :seq",
        ["id": id, "seq": sequence])
    }
  }

  /// The recorded deliveries of webhook `id` in `state`, by `seq`, at most `limit`.
  package func deliveries(
    ofWebhook id: String, state: WebhookDeliveryRecord.State, limit: Int = 1_000
  ) throws -> [WebhookDeliveryRecord] {
    try withConnection { connection in
      let rows = try connection.query(
        """
        SELECT seq, attempts, mt_us(next_attempt) AS next_us, last_error FROM deliveries
        WHERE webhook_id = :id AND state = :state ORDER BY seq LIMIT :limit
        """, ["id": id, "state": state.rawValue, "limit": limit])
      return (0..<rows.count).map { row in
        WebhookDeliveryRecord(
          webhookID: id, sequence: rows.int64(row, "seq") ?? 0, state: state,
          attempts: Int(rows.int64(row, "attempts") ?? 0),
          nextAttempt: rows.int64(row, "next_us").map(Self.date(microseconds:)),
          lastError: rows.string(row, "last_error"))
      }
    }
  }

  /// The `seq`s of webhook `id`'s dead deliveries after `sequence`.
  package func deadDeliveries(ofWebhook id: String, after sequence: Int64) throws
    -> Set<Int64>
  {
    try withConnection { connection in
      let rows = try connection.query(
        "SELECT seq FROM deliveries WHERE webhook_id = :id AND state = 'dead' AND seq > :after",
        ["id": id, "after": sequence])
      return Set((0..<rows.count).compactMap { rows.int64($0, "seq") })
    }
  }

  /// How many dead deliveries each webhook has.
  package func deadDeliveryCounts() throws -> [String: Int] {
    try withConnection { connection in
      let rows = try connection.query(
        "SELECT webhook_id, count(*) AS n FROM deliveries WHERE state = 'dead' GROUP BY webhook_id"
      )
      var counts: [String: Int] = [:]
      for row in 0..<rows.count {
        counts[rows.string(row, "webhook_id") ?? ""] = Int(rows.int64(row, "n") ?? 0)
      }
      return counts
    }
  }

  // MARK: - Internals

  /// Webhook `id`, or every webhook when nil, oldest first (ties by id, code point order).
  private func webhooks(id: String?) throws -> [Webhook] {
    try withConnection { connection in
      let rows = try connection.query(
        """
        SELECT id, url, events, mission_id, worker_id, secret, mt_us(created) AS created_us,
          disabled, origin
        FROM webhooks WHERE CAST(:id AS text) IS NULL OR id = :id
        ORDER BY created, id COLLATE "C"
        """, ["id": id])
      return (0..<rows.count).map { row in
        Webhook(
          id: rows.string(row, "id") ?? "", url: rows.string(row, "url") ?? "",
          eventTypes: Webhook.eventTypes(stored: rows.string(row, "events")),
          missionID: rows.string(row, "mission_id"), workerID: rows.string(row, "worker_id"),
          secret: rows.string(row, "secret") ?? "",
          created: Self.date(microseconds: rows.int64(row, "created_us") ?? 0),
          disabledReason: rows.string(row, "disabled"),
          fromFlag: rows.string(row, "origin") == "flag")
      }
    }
  }
}
