extension SchemaMigration {
  /// Version 8: the event log as an outbox (DESIGN §9).
  ///
  /// - `webhooks`: the subscriptions. `events` is the comma-separated list of event types
  ///   (NULL: every type); `mission_id` and `worker_id` filter (NULL: any); `secret` is the
  ///   signing secret's `whsec_…` text; `disabled` is why a receiver's `410 Gone` disabled it
  ///   (NULL: enabled); `origin` is `api` or `flag` (`serve --webhook`, found again by URL at
  ///   the next start instead of added twice).
  /// - `delivery_cursors`: one row per consumer (`webhook:<id>`, `mqtt:<prefix>`): every event
  ///   up to `seq` was handed over (delivered or dead). Moved only after a hand-over, so a
  ///   restart resumes after it and may repeat, never skip, an event.
  /// - `deliveries`: the events of a webhook that failed at least once and are not yet
  ///   delivered (`failed`, with the next attempt's time) or gave up (`dead`); a delivered
  ///   event's row is removed. Removed with the webhook.
  static let outbox = """
    CREATE TABLE webhooks (
      id TEXT PRIMARY KEY NOT NULL,
      url TEXT NOT NULL,
      events TEXT,
      mission_id TEXT,
      worker_id TEXT,
      secret TEXT NOT NULL,
      created_us INTEGER NOT NULL,
      disabled TEXT,
      origin TEXT NOT NULL DEFAULT 'api' CHECK (origin = 'api' OR origin = 'flag')
    ) WITHOUT ROWID;
    CREATE TABLE delivery_cursors (
      consumer TEXT PRIMARY KEY NOT NULL,
      seq INTEGER NOT NULL
    ) WITHOUT ROWID;
    CREATE TABLE deliveries (
      webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      seq INTEGER NOT NULL,
      state TEXT NOT NULL CHECK (state = 'failed' OR state = 'dead'),
      attempts INTEGER NOT NULL,
      next_attempt_us INTEGER,
      last_error TEXT,
      updated_us INTEGER NOT NULL,
      PRIMARY KEY (webhook_id, seq)
    ) WITHOUT ROWID;
    CREATE INDEX deliveries_by_state ON deliveries (webhook_id, state, seq);
    """
}
