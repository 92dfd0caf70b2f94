import MissionTracking

/// An event read back from the outbox with its global sequence number.
package struct PostgresStoredEvent: Sendable, Hashable {
  /// The event's `seq`: its place in the log of every mission.
  package var sequence: Int64
  /// The event as the engine decided it.
  package var event: TrackingEvent

  /// Creates a stored event.
  package init(sequence: Int64, event: TrackingEvent) {
    self.sequence = sequence
    self.event = event
  }
}
