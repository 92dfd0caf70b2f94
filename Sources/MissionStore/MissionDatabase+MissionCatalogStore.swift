import MissionCatalog
import MissionFiles

/// The SQLite store answers the catalog commands with its own methods; only the import's
/// summary is counted into the shared shape.
extension MissionDatabase: MissionCatalogStore {
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
