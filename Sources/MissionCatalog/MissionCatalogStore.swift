import Foundation
import MissionFiles
import MissionTracking

/// What the commands that import and read missions (`missions import`, `missions list`,
/// `missions show`, `nearby`, `export`, `report`) ask of a store, so that they run unchanged
/// on SQLite (`MissionDatabase`) and on PostgreSQL (`PostgresDatabase`).
///
/// Every requirement is one the SQLite store already answers; the PostgreSQL store answers
/// it with the same values for the same missions (ids in Unicode NFC, missions ordered by
/// their id's code points, nearby matches by the proximity grid's rule).
package protocol MissionCatalogStore: Sendable {
  /// Every mission, ordered by id (code point order), only those in `state` when given.
  func missions(inState state: MissionState?) async throws -> [Mission]

  /// The mission with `id` (in any Unicode normalisation form), or nil.
  func mission(id: String) async throws -> Mission?

  /// The audit log of stored mission `id`, oldest first.
  func transitions(ofMission id: String) async throws -> [MissionTransition]

  /// The delivered track of stored mission `id`, in time order.
  func track(ofMission id: String) async throws -> [Fix]

  /// The stored events of stored mission `id`, oldest first (`report` draws them).
  func trackingEvents(ofMission id: String) async throws -> [TrackingEvent]

  /// The stored events of stored mission `id` as JSON lines (no newlines), oldest first:
  /// what `export --format jsonl` prints. A line is `TrackingEvent.jsonLine`, or the text
  /// a store kept where that would not give the line first written byte for byte.
  func eventLines(ofMission id: String) async throws -> [String]

  /// The geofence states of stored mission `id`, by fence id.
  func fenceStates(ofMission id: String) async throws -> [String: FenceState]

  /// The missions past their deadline at `now` that can still expire (the lifecycle's
  /// `isDue(at:)` decides). Reads only.
  func dueMissionIDs(at now: Date) async throws -> Set<String>

  /// Expires the missions `dueMissionIDs(at:)` names, each with its recorded transition at
  /// `now`; returns their ids.
  @discardableResult
  func expireDue(at now: Date) async throws -> [String]

  /// The missions near `center`, nearest first, ties by id: exactly the answers of
  /// `SpatialGrid.missions(within:of:where:)` (no `limit`) or
  /// `SpatialGrid.nearest(_:to:within:where:)` over the stored missions, with the missions
  /// in `due` counted as expired and the filter `{ $0 == state }` applied before the limit.
  /// With neither a radius nor a limit, every matching mission.
  func nearbyMissions(
    within radiusMeters: Double?, of center: Coordinate, limit: Int?, state: MissionState?,
    due: Set<String>
  ) async throws -> [ProximityMatch]

  /// Imports the missions of a file's bytes in `format`, all or nothing; `fileName` names
  /// the file in errors (`FILE:LINE`).
  /// - Parameter replacingExisting: Update stored missions with the same id instead of
  ///   failing on the first.
  func importMissionFile(
    _ bytes: [UInt8], format: MissionFileFormat, fileName: String, replacingExisting: Bool
  ) async throws -> MissionImportCount

  /// Ends the store's connection (the commands close what they opened).
  func close() async throws
}
