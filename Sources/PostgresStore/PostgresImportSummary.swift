/// What a bulk import stored.
package struct PostgresImportSummary: Sendable, Hashable {
  /// Missions in the import.
  package var imported: Int
  /// Of them, missions the store did not hold before.
  package var new: Int
  /// Of them, missions that replaced a stored one.
  package var replaced: Int { imported - new }

  /// Creates a summary.
  package init(imported: Int, new: Int) {
    self.imported = imported
    self.new = new
  }
}
