/// What an import did (it is all or nothing: a summary means every record was stored).
import MissionFiles

public struct ImportSummary: Sendable, Hashable {
  /// The format read.
  public var format: MissionFileFormat
  /// Ids of the missions stored, in file order.
  public var missionIDs: [String]
  /// How many of them replaced a stored mission (only with `replacingExisting`).
  public var replacedCount: Int

  /// Creates a summary.
  public init(format: MissionFileFormat, missionIDs: [String], replacedCount: Int) {
    self.format = format
    self.missionIDs = missionIDs
    self.replacedCount = replacedCount
  }
}
