import Foundation

/// The event log as an outbox (DESIGN §9): what a delivery of events to webhooks and MQTT
/// asks of a store, so that it runs unchanged on SQLite (`MissionDatabase`) and on
/// PostgreSQL (`PostgresDatabase`), and what the `webhooks` commands use.
///
/// Each consumer (`webhook:<id>`, `mqtt:<prefix>`) is a cursor over the log: every event up
/// to it was handed over (delivered or dead). A cursor moves only after a hand-over, so a
/// restart repeats, never skips, an event. Both stores answer with the same values: the
/// same ids, cursors, states, attempts and errors, times to the microsecond.
///
/// Synchronous, as `ServiceStore` is: the service's threads call it and wait.
package protocol OutboxStore: Sendable {
  /// Committed events after `afterSequence`, in `seq` order, at most `limit`. An event
  /// with a lower `seq` is never committed after one with a higher `seq` was read, so a
  /// cursor that moved past an event never misses an earlier one.
  func committedEvents(afterSequence: Int64, limit: Int) throws -> [StoredEvent]

  /// The highest committed `seq` (0 for an empty log).
  func lastCommittedSequence() throws -> Int64

  /// The time of the committed event just after `sequence`, nil when there is none: the
  /// oldest event a consumer at cursor `sequence` has not handed over.
  func timeOfEvent(after sequence: Int64) throws -> Date?

  /// Every webhook, oldest first (ties by id in code point order).
  func webhooks() throws -> [Webhook]

  /// Webhook `id`, nil when there is none.
  func webhook(_ id: String) throws -> Webhook?

  /// Adds `webhook`; its cursor starts at the end of the log (it is sent the events that
  /// come after it was added).
  /// - Throws: the store's form of `WebhookRefusal.invalidWebhook`
  ///   (`Webhook.storageProblem`).
  func addWebhook(_ webhook: Webhook) throws

  /// Replaces the secret of webhook `id` (`serve --webhook` with a new secret file).
  func setWebhookSecret(_ secret: String, of id: String) throws

  /// Removes webhook `id`, its cursor and its deliveries; false when there was none.
  func removeWebhook(_ id: String) throws -> Bool

  /// Disables webhook `id` for `reason` (its receiver answered `410 Gone`).
  func disableWebhook(_ id: String, reason: String) throws

  /// Redelivers webhook `id` from event `sequence` on: its cursor goes back to just before
  /// it (never forward), its failed and dead deliveries from there are forgotten and the
  /// webhook is enabled again.
  /// - Throws: the store's form of `WebhookRefusal.webhookNotFound`.
  func redeliverWebhook(_ id: String, from sequence: Int64) throws

  /// Consumer `consumer`'s cursor, nil when it has none yet.
  func deliveryCursor(_ consumer: String) throws -> Int64?

  /// Moves the cursors in `cursors` (consumer → seq) forward in one transaction; a cursor
  /// never moves back here (a redelivery moves it back on purpose).
  func advanceDeliveryCursors(_ cursors: [String: Int64]) throws

  /// Records that event `sequence` of webhook `id` failed attempt `attempts` with `error`
  /// (kept as `oneLine(error, limit: 500)`): retried at `nextAttempt`, or dead when that is
  /// nil.
  func noteDeliveryFailure(
    webhook id: String, sequence: Int64, attempts: Int, error: String, nextAttempt: Date?
  ) throws

  /// Forgets the failures of event `sequence` of webhook `id`: it was delivered.
  func noteDelivered(webhook id: String, sequence: Int64) throws

  /// The recorded deliveries of webhook `id` in `state` (`failed` or `dead`; `pending` ones
  /// are not recorded), by `seq`, at most `limit`.
  func deliveries(ofWebhook id: String, state: WebhookDeliveryRecord.State, limit: Int)
    throws -> [WebhookDeliveryRecord]

  /// The `seq`s of webhook `id`'s dead deliveries after `sequence`.
  func deadDeliveries(ofWebhook id: String, after sequence: Int64) throws -> Set<Int64>

  /// How many dead deliveries each webhook has (webhooks without any are left out).
  func deadDeliveryCounts() throws -> [String: Int]

  // MARK: Delivery claims

  /// Claims consumer `consumer` for `node` until `lease` from now, or renews `node`'s claim:
  /// a `serve` node delivers a consumer's events only while it holds its claim, so that
  /// several nodes on one database send each event once (DESIGN §10; the protocol is in
  /// `PostgresDatabase+DeliveryClaims.swift`).
  /// - Returns: whether `node` holds the claim now (false while another node holds it, and
  ///   for a consumer without a cursor yet).
  ///
  /// SQLite answers true and keeps nothing: an SQLite database is one machine's file with
  /// one `serve` (the embedded default; several nodes share a PostgreSQL database, DESIGN
  /// §10), so there is nobody to share the delivery with. Nothing stops a second `serve` on
  /// the same file, though (the tracking lease is per worker, and another worker's is
  /// free): each would deliver every event, at least once still, as before claims.
  func claimConsumer(_ consumer: String, node: String, for lease: Duration) throws -> Bool

  /// Ends `node`'s claim on consumer `consumer` (nothing when another node holds it): a
  /// node stopping cleanly hands its consumers over without waiting for its lease to end.
  func releaseConsumer(_ consumer: String, node: String) throws
}
