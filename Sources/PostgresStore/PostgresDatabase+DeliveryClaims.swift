import Foundation

/// Sharing the delivery of the outbox among several `serve` nodes on one database (DESIGN
/// §10), so that each event goes out once per consumer in the normal case.
///
/// The claim protocol: a node delivers for consumer C (`webhook:<id>`, `mqtt:<prefix>`)
/// only while it holds C's claim, the `claimed_by` / `claimed_until` columns of C's cursor
/// row.
///
/// 1. `claimConsumer(C, node:, for: lease)` takes the claim when nobody holds it, when the
///    holder's lease ran out, or renews it when this node holds it, and answers whether
///    this node holds it now. The row is locked `FOR UPDATE SKIP LOCKED`: a node that finds
///    another node claiming C at this moment answers false at once instead of waiting.
///    Expiry is decided by the server's clock, so the nodes' clocks do not matter.
/// 2. The holder renews well before its lease ends (e.g. every lease/3) and before it
///    moves C's cursor; when a renewal answers false, another node took C over and this
///    node stops delivering for C (it may have sent the events in flight once more: at
///    least once, DESIGN §9).
/// 3. `releaseConsumer(C, node:)` ends the claim when the node stops (a clean shutdown
///    hands C over at once; a killed node's claim ends with its lease).
///
/// One node at a time delivers all of a consumer's events, so the per-mission order of DESIGN
/// §9 holds across nodes. The cursor itself moves as on SQLite (`advanceDeliveryCursors`,
/// never backwards), so a late write of a node that lost its claim cannot undo the new
/// holder's progress.
extension PostgresDatabase {
  /// Claims consumer `consumer` for `node` until `lease` from now (server time), or renews
  /// this node's claim.
  /// - Returns: whether `node` holds the claim now: false while another node's lease runs,
  ///   while another node is claiming it this moment, and for a consumer that has no cursor
  ///   yet (`addWebhook` makes a webhook's; a new consumer makes its own with
  ///   `advanceDeliveryCursors` first).
  package func claimConsumer(_ consumer: String, node: String, for lease: Duration)
    throws -> Bool
  {
    let (seconds, attoseconds) = lease.components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    return try withConnection { connection in
      try connection.query(
        """
        UPDATE delivery_cursors
        SET claimed_by = :node,
          claimed_until = clock_timestamp() + CAST(:lease AS bigint) * interval '1 microsecond'
        WHERE consumer = (
          SELECT consumer FROM delivery_cursors
          WHERE consumer = :consumer
            AND (claimed_by IS NULL OR claimed_by = :node OR claimed_until <= clock_timestamp())
          FOR UPDATE SKIP LOCKED)
        """, ["node": node, "lease": microseconds, "consumer": consumer]
      ).affectedRows == 1
    }
  }

  /// Ends `node`'s claim on consumer `consumer` (nothing when another node holds it).
  package func releaseConsumer(_ consumer: String, node: String) throws {
    try withConnection { connection in
      _ = try connection.query(
        """
        UPDATE delivery_cursors SET claimed_by = NULL, claimed_until = NULL
        WHERE consumer = :consumer AND claimed_by = :node
        """, ["consumer": consumer, "node": node])
    }
  }
}
