import CommandLineSupport
import Foundation
import MissionStore

/// The `--db PATH` option, taken before the other arguments are checked so that a usage
/// error never creates a database file.
///
/// Opening checks the path first, so a directory, a named pipe, a device such as
/// `/dev/null` or a file that is not an SQLite database each get a message that says so. A
/// command that only reads (`readOnly`) still works on a database it cannot write, such as
/// one in a read-only directory: it opens the file read-only and skips the deadline expiry
/// it could not record.
struct DatabaseOption {
  /// The default database: a file in the working directory.
  static let defaultPath = "missiontrack.sqlite"

  /// The path given, or nil for the default.
  var path: String?

  /// The file the commands use: `path` or the default.
  var resolvedPath: String { path ?? DatabaseOption.defaultPath }

  /// Takes `--db PATH` from `arguments`.
  init(_ arguments: inout ArgumentList) throws(CLIError) {
    path = try arguments.option("--db")
  }

  /// Whether the database file exists now (`:memory:` counts as existing).
  var exists: Bool {
    resolvedPath == ":memory:" || FileKind(path: resolvedPath) != nil
  }

  /// Opens the database and expires the open or accepted missions whose deadline has
  /// passed (each with its recorded transition).
  ///
  /// - Parameters:
  ///   - mustExist: A missing file is a runtime error (commands that only read or change
  ///     stored missions) instead of a new empty database.
  ///   - readOnly: The command only reads: when the file or its directory is not writable
  ///     the database is opened read-only and nothing is expired.
  /// - Throws: `CLIError.failure` with one line saying what is wrong with the path.
  func open(mustExist: Bool = true, readOnly: Bool = false) throws(CLIError) -> MissionDatabase {
    let resolved = resolvedPath
    guard resolved != ":memory:" else { return try connect(resolved, readOnly: false) }
    let shown = resolved.terminalSafe
    switch FileKind(path: resolved) {
    case nil:
      if mustExist {
        throw .failure(
          "no database at \(shown): import missions first (missiontrack missions import FILE)"
            + " or pass --db PATH")
      }
      let directory = URL(fileURLWithPath: resolved).deletingLastPathComponent().path
      guard FileKind(path: directory) == .directory else {
        throw .failure("cannot create database \(shown): no directory \(directory.terminalSafe)")
      }
    case .regular?:
      break
    case let other?:
      throw .failure("--db \(shown) is \(other.description), not a database file")
    }
    let writable = access(resolved, W_OK) == 0 || FileKind(path: resolved) == nil
    let directory = URL(fileURLWithPath: resolved).deletingLastPathComponent().path
    let directoryWritable = access(directory, W_OK) == 0
    return try connect(resolved, readOnly: readOnly && !(writable && directoryWritable))
  }

  /// Removes the database file and its SQLite side files: for an import that created the
  /// file and then failed, so no empty database is left behind.
  func removeFiles() {
    guard resolvedPath != ":memory:" else { return }
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(resolvedPath + suffix) }
  }

  private func connect(_ resolved: String, readOnly: Bool) throws(CLIError) -> MissionDatabase {
    do {
      let database = try MissionDatabase(
        path: resolved, configuration: StoreConfiguration(readOnly: readOnly))
      // The store's clock tick: whatever a command does, missions past their deadline are
      // expired first, so they are never offered, listed as open or started. A read-only
      // open cannot record that; it shows the stored states.
      if !readOnly { try database.expireDue() }
      return database
    } catch StoreError.sqlite(let code, _, _) where code & 0xFF == 26 {
      throw .failure("\(resolved.terminalSafe) is not a MissionTrack database (not an SQLite file)")
    } catch StoreError.sqlite(let code, _, _) where code & 0xFF == 8 {
      throw .failure(
        "cannot write database \(resolved.terminalSafe): it or its directory is read-only")
    } catch {
      throw .failure("cannot open database \(resolved.terminalSafe): \(error)")
    }
  }
}
