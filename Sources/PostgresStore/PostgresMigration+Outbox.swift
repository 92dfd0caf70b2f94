extension PostgresMigration {
  /// Version 3: the event log as an outbox (DESIGN §9), shared by several `serve` nodes
  /// (DESIGN §10). The tables mirror the SQLite store's schema version 8 column for column,
  /// times as `timestamptz` (microseconds, as its `*_us` integers):
  ///
  /// - `webhooks`: the subscriptions. `events` is the comma-separated list of event types
  ///   (NULL: every type); `mission_id` and `worker_id` filter (NULL: any); `secret` is the
  ///   `whsec_…` text; `disabled` is why a receiver's `410 Gone` disabled it (NULL:
  ///   enabled); `origin` is `api` or `flag`.
  /// - `delivery_cursors`: one row per consumer (`webhook:<id>`, `mqtt:<prefix>`): every
  ///   event up to `seq` was handed over. `claimed_by` and `claimed_until` are the node
  ///   delivering for the consumer and until when (see `PostgresDatabase.claimConsumer`).
  /// - `deliveries`: a webhook's events that failed at least once and are not delivered yet
  ///   (`failed`, with the next attempt's time) or gave up (`dead`); removed with the
  ///   webhook.
  ///
  /// Events are appended in commit order from this version on: a statement that inserts
  /// events first takes a transaction-scoped advisory lock (a BEFORE statement trigger,
  /// as `missions` does for its change log), so `seq`s are handed out in the order their
  /// transactions commit. Without it a transaction holding `seq` 7 could commit after one
  /// holding `seq` 8 was read, and a consumer whose cursor moved to 8 would never send 7.
  /// The price: transactions that write events commit one after another from their first
  /// event on (the rest of a transaction runs in parallel).
  static let outbox = """
    CREATE TABLE webhooks (
      id text PRIMARY KEY,
      url text NOT NULL,
      events text,
      mission_id text,
      worker_id text,
      secret text NOT NULL,
      created timestamptz NOT NULL,
      disabled text,
      origin text NOT NULL DEFAULT 'api' CHECK (origin IN ('api', 'flag'))
    );
    CREATE TABLE delivery_cursors (
      consumer text PRIMARY KEY,
      seq bigint NOT NULL,
      claimed_by text,
      claimed_until timestamptz
    );
    CREATE TABLE deliveries (
      webhook_id text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
      seq bigint NOT NULL,
      state text NOT NULL CHECK (state IN ('failed', 'dead')),
      attempts integer NOT NULL,
      next_attempt timestamptz,
      last_error text,
      updated timestamptz NOT NULL,
      PRIMARY KEY (webhook_id, seq)
    );
    CREATE INDEX deliveries_by_state ON deliveries (webhook_id, state, seq);

    CREATE FUNCTION mt_lock_events() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(7887040406614865011);  -- 'mtevents' as bytes
      RETURN NULL;
    END $$;
    CREATE TRIGGER events_commit_order BEFORE INSERT ON events
      FOR EACH STATEMENT EXECUTE FUNCTION mt_lock_events();
    """
}
