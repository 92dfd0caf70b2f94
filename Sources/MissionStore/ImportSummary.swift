import MissionFiles

/// What an import did (it is all or nothing: a summary means every record was stored).
package struct ImportSummary: Sendable, Hashable {
  /// The format read.
  package var format: MissionFileFormat
  /// Ids of the missions stored, in file order.
  package var missionIDs: [String]
  /// How many of them replaced a stored mission (only with `replacingExisting`).
  package var replacedCount: Int

  /// Creates a summary.
  package init(format: MissionFileFormat, missionIDs: [String], replacedCount: Int) {
    self.format = format
    self.missionIDs = missionIDs
    self.replacedCount = replacedCount
  }
}
