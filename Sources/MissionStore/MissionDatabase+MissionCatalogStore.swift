import MissionCatalog
import MissionFiles
import MissionTracking

/// The SQLite store answers the catalog commands with its own methods; only the import's
/// summary is counted into the shared shape, and the stored events are given without their
/// place in the log.
extension MissionDatabase: MissionCatalogStore {
  /// `events(ofMission:)`, the events only.
  package func trackingEvents(ofMission id: String) throws -> [TrackingEvent] {
    try events(ofMission: id).map(\.event)
  }

  /// `importMissions(_:format:fileName:replacingExisting:at:)`, counted.
  package func importMissionFile(
    _ bytes: [UInt8], format: MissionFileFormat, fileName: String, replacingExisting: Bool
  ) throws -> MissionImportCount {
    let summary = try importMissions(
      bytes, format: format, fileName: fileName, replacingExisting: replacingExisting)
    return MissionImportCount(
      format: summary.format, imported: summary.missionIDs.count, replaced: summary.replacedCount)
  }
}
