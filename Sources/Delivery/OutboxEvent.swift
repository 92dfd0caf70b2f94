/// One event of the outbox as a consumer delivers it: its global `seq`, the mission whose
/// order it keeps, and the exact bytes sent (the event's JSON object with `"seq"`).
package struct OutboxEvent: Sendable, Equatable {
  /// The event's position in the event log.
  package var seq: Int64
  /// The mission it belongs to; events of one mission are delivered in `seq` order. Nil
  /// (an event of no mission) is ordered after nothing.
  package var missionID: String?
  /// The request body.
  package var body: [UInt8]

  /// An event to deliver.
  package init(seq: Int64, missionID: String?, body: [UInt8]) {
    self.seq = seq
    self.missionID = missionID
    self.body = body
  }
}
