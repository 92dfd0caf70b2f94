import MissionFiles
import MissionTracking

/// A mission's stored events for `export` and `report` on PostgreSQL: the same events, and
/// the same JSON lines, as the SQLite store gives for the same recording.
extension PostgresDatabase {
  /// The stored events of mission `id` (in any Unicode normalisation form), oldest first;
  /// none for an unknown mission.
  /// - Complexity: O(n) in the mission's events (`events(ofMission:afterSequence:limit:)`).
  package func trackingEvents(ofMission id: String) throws -> [TrackingEvent] {
    try events(ofMission: MissionID.normalized(id)).map(\.event)
  }

  /// The stored events of mission `id` as JSON lines, oldest first: each event's
  /// `TrackingEvent.jsonLine`, rebuilt from its typed columns as SQLite rebuilds its own
  /// (SQLite also keeps the first line of a fix whose rebuilt line would differ; this store
  /// keeps none: docs/limitations.md).
  package func eventLines(ofMission id: String) throws -> [String] {
    try trackingEvents(ofMission: id).map(\.jsonLine)
  }
}
