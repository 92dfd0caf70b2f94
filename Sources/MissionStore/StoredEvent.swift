import Foundation

/// One row of the events table.
public struct StoredEvent: Sendable, Hashable {
  /// Insertion order across the whole database (1, 2, 3, …), for tailing.
  public var sequence: Int64
  /// The mission.
  public var missionID: String
  /// The event's `type` (`fix`, `enter`, `state`, …).
  public var type: String
  /// The event time, UTC.
  public var time: Date
  /// The event as written on stdout: one JSON object, no newline.
  public var jsonLine: String

  /// Creates a stored event.
  public init(sequence: Int64, missionID: String, type: String, time: Date, jsonLine: String) {
    self.sequence = sequence
    self.missionID = missionID
    self.type = type
    self.time = time
    self.jsonLine = jsonLine
  }
}
