import MissionCatalog

/// Delivery claims on SQLite (`OutboxStore`): one `serve` delivers from an SQLite file, so
/// its node always holds every consumer and there is nothing to record or release.
extension MissionDatabase {
  /// True: no other node shares an SQLite file's delivery (see `OutboxStore`).
  package func claimConsumer(_ consumer: String, node: String, for lease: Duration) throws
    -> Bool
  { true }

  /// Nothing: no claim was recorded.
  package func releaseConsumer(_ consumer: String, node: String) throws {}
}
