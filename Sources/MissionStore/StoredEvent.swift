import Foundation
import MissionTracking

/// One row of the events table: the event as a value, with its place in the log.
public struct StoredEvent: Sendable, Hashable {
  /// Insertion order across the whole database (1, 2, 3, …), for tailing.
  public var sequence: Int64
  /// The event, read back from its typed columns (a `fix` event from its track row).
  public var event: TrackingEvent
  /// The event as it was written on stdout: one JSON object, no newline (for rows written
  /// before schema version 3, their stored text).
  public var jsonLine: String

  /// Creates a stored event.
  public init(sequence: Int64, event: TrackingEvent, jsonLine: String? = nil) {
    self.sequence = sequence
    self.event = event
    self.jsonLine = jsonLine ?? event.jsonLine
  }

  /// The mission.
  public var missionID: String { event.missionID }
  /// The event's `type` (`fix`, `enter`, `state`, …).
  public var type: String { event.type }
  /// The event time, UTC.
  public var time: Date { event.time }
}
