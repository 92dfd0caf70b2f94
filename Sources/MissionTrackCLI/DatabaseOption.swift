import Foundation
import MissionStore

/// The `--db PATH` option, taken before the other arguments are checked so that a usage
/// error never creates a database file.
struct DatabaseOption {
  /// The default database: a file in the working directory.
  static let defaultPath = "missiontrack.sqlite"

  /// The path given, or nil for the default.
  var path: String?

  /// Takes `--db PATH` from `arguments`.
  init(_ arguments: inout ArgumentList) throws(CLIError) {
    path = try arguments.option("--db")
  }

  /// Opens the database and expires the open or accepted missions whose deadline has
  /// passed (each with its recorded transition). With `mustExist`, a missing file is a runtime error (commands that
  /// only read or change stored missions) instead of a new empty database.
  /// - Throws: `CLIError.failure` when it does not exist (with `mustExist`) or cannot be
  ///   opened.
  func open(mustExist: Bool = true) throws -> MissionDatabase {
    let resolved = path ?? DatabaseOption.defaultPath
    if mustExist, resolved != ":memory:", !FileManager.default.fileExists(atPath: resolved) {
      throw CLIError.failure(
        "no database at \(resolved): import missions first (missiontrack missions import FILE)"
          + " or pass --db PATH")
    }
    do {
      let database = try MissionDatabase(path: resolved)
      // The store's clock tick: whatever a command does, missions past their deadline are
      // expired first, so they are never offered, listed as open or started.
      try database.expireDue()
      return database
    } catch {
      throw CLIError.failure("cannot open database \(resolved): \(error)")
    }
  }
}
