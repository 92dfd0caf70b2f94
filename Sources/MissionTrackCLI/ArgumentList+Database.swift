import MissionStore

extension ArgumentList {
  /// The default database: a file in the working directory.
  static let defaultDatabasePath = "missiontrack.sqlite"

  /// Takes `--db PATH` (default `missiontrack.sqlite` in the working directory) and opens
  /// the database, creating it (with the current schema) when it does not exist.
  /// - Throws: `CLIError.failure` naming the path when it cannot be opened.
  mutating func openDatabase(readOnly: Bool = false) throws -> MissionDatabase {
    let path = try option("--db") ?? ArgumentList.defaultDatabasePath
    do {
      return try MissionDatabase(path: path, configuration: StoreConfiguration(readOnly: readOnly))
    } catch {
      throw CLIError.failure("cannot open database \(path): \(error)")
    }
  }
}
