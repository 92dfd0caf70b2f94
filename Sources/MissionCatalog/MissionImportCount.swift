import MissionFiles

/// What an import stored (it is all or nothing: a count means every record was stored).
package struct MissionImportCount: Sendable, Hashable {
  /// The format read.
  package var format: MissionFileFormat
  /// How many missions the file held, all stored.
  package var imported: Int
  /// How many of them replaced a stored mission.
  package var replaced: Int

  /// Creates a count.
  package init(format: MissionFileFormat, imported: Int, replaced: Int) {
    self.format = format
    self.imported = imported
    self.replaced = replaced
  }
}
