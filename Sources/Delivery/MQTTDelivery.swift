/// The MQTT consumer of the outbox: publishes each event on `PREFIX/missions/{id}/events`
/// (QoS 1, not retained) and moves the consumer's cursor only on PUBACK.
///
/// Events are handed to libmosquitto in `seq` order, so one mission's events reach the
/// broker in order (one connection; after a reconnect libmosquitto resends what was in
/// flight first). Acknowledgements may come back in any order; `OutboxCursor` passes an
/// event only once it and every earlier one are acknowledged, so a kill loses nothing and
/// may repeat some. Mission state and worker position (retained) are published by the
/// caller through `MQTTPublisher` directly: they are the latest value, not a log.
package actor MQTTDelivery {
  private let publisher: MQTTPublisher
  private let report: @Sendable (Int64) -> Void
  private var outbox: OutboxCursor

  /// Publishes with `publisher`, resuming after `cursor`; `report` is told each new cursor.
  package init(
    publisher: MQTTPublisher, cursor: Int64, report: @escaping @Sendable (Int64) -> Void
  ) {
    self.publisher = publisher
    self.report = report
    outbox = OutboxCursor(position: cursor)
  }

  /// Every event up to this `seq` is acknowledged by the broker (or has no topic).
  package var cursor: Int64 { outbox.position }
  /// Events taken in and not yet behind the cursor (stop reading the outbox while large).
  package var heldCount: Int { outbox.heldCount }

  /// Publishes `events` read from the outbox (in increasing `seq`; repeats are ignored). An
  /// event of no mission has no events topic and is passed at once.
  package func enqueue(_ events: [OutboxEvent]) {
    for event in events where outbox.take(event.seq) {
      guard let missionID = event.missionID else {
        acknowledged(event.seq, .success(()))
        continue
      }
      let seq = event.seq
      publisher.publish(
        topic: publisher.topics.missionEvents(missionID), payload: event.body, retain: false
      ) { result in
        Task { await self.acknowledged(seq, result) }
      }
    }
  }

  /// A PUBACK (or a refusal, which leaves the event behind the cursor for the next run:
  /// it happens only when the publisher was closed).
  private func acknowledged(_ seq: Int64, _ result: Result<Void, DeliveryError>) {
    guard case .success = result, let position = outbox.finish(seq) else { return }
    report(position)
  }
}
