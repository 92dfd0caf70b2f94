import Foundation
import MissionTracking

/// One row of the events table: the event as a value, with its place in the log.
package struct StoredEvent: Sendable, Hashable {
  /// Insertion order across the whole database (1, 2, 3, …), for tailing.
  package var sequence: Int64
  /// The event, read back from its typed columns (a `fix` event from its track row).
  package var event: TrackingEvent
  /// The event as it was written on stdout: one JSON object, no newline (for rows written
  /// before schema version 3, their stored text).
  package var jsonLine: String

  /// Creates a stored event.
  package init(sequence: Int64, event: TrackingEvent, jsonLine: String? = nil) {
    self.sequence = sequence
    self.event = event
    self.jsonLine = jsonLine ?? event.jsonLine
  }

  /// The mission.
  package var missionID: String { event.missionID }
  /// The event's `type` (`fix`, `enter`, `state`, …).
  package var type: String { event.type }
  /// The event time, UTC.
  package var time: Date { event.time }
}
