import CommandLineSupport
import Foundation
import MissionCatalog
import MissionStore
import MissionTracking
import PostgresStore

/// The `--db PATH|URI` option, taken before the other arguments are checked so that a usage
/// error never creates a database file.
///
/// A `postgresql://` or `postgres://` URI (any libpq connection URI, DESIGN §10) selects
/// the PostgreSQL store; anything else is an SQLite file. That choice is made here only
/// (`postgresURI`), and a URI never goes through the file checks. The commands that run on
/// either store open it with `openCatalog(mustExist:readOnly:)` (the catalog with the
/// recorded tracks and events; the engine's `TrackingStore` for the lifecycle actions,
/// `replay` and `track`; `WorkerStore` for `workers`; `TrackingLeaseStore` for the tracking
/// lease of `replay` and `track`; `OutboxStore` for `webhooks`); `serve` opens it with
/// `openService(groupCommit:)`.
///
/// Opening a file checks the path first, so a directory, a named pipe, a device such as
/// `/dev/null` or a file that is not an SQLite database each get a message that says so. A
/// command that only reads (`readOnly`) still works on a database it cannot write, such as
/// one in a read-only directory: it opens the file read-only.
///
/// Opening never writes missions: the deadline expiry is a step of its own
/// (`expireDue(_:)`) that the commands which change missions or track take; a command that
/// only reads shows missions past their deadline as expired (`DueMissions`) and leaves the
/// file as it was.
struct DatabaseOption {
  /// The default database: a file in the working directory.
  static let defaultPath = "missiontrack.sqlite"

  /// How long connecting to PostgreSQL may take when the URI does not say
  /// (`connect_timeout`; libpq would otherwise wait as long as the operating system does).
  static let defaultConnectTimeoutSeconds = 10

  /// The path or URI given, or nil for the default.
  var path: String?

  /// The file the commands use: `path` or the default.
  var resolvedPath: String { path ?? DatabaseOption.defaultPath }

  /// Takes `--db PATH` from `arguments`.
  init(_ arguments: inout ArgumentList) throws(CLIError) {
    path = try arguments.option("--db")
  }

  /// The PostgreSQL connection URI given, nil for an SQLite file: the one place that tells
  /// the two apart (by the URI scheme, as libpq does).
  var postgresURI: String? {
    guard let path else { return nil }
    let lowered = path.lowercased()
    return lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") ? path : nil
  }

  /// The SQLite file the option names, which `-o` must never overwrite
  /// (`OutputFile.write`); nil for a PostgreSQL URI, which names no file here.
  var databaseFile: String? { postgresURI == nil ? resolvedPath : nil }

  /// Whether the database file exists now (`:memory:` counts as existing).
  var exists: Bool {
    resolvedPath == ":memory:" || FileKind(path: resolvedPath) != nil
  }

  /// Opens the store the option names: PostgreSQL for a URI, else the SQLite file (nothing
  /// is expired).
  /// - Throws: `CLIError.failure` with one line: what is wrong with the path, or why the
  ///   server cannot be reached (the URI shown without its password).
  func openCatalog(mustExist: Bool = true, readOnly: Bool = false) throws(CLIError)
    -> any MissionCatalogStore & TrackingStore & WorkerStore & TrackingLeaseStore & OutboxStore
  {
    guard let uri = postgresURI else {
      return try openFile(mustExist: mustExist, readOnly: readOnly)
    }
    return try openPostgres(uri)
  }

  /// Connects to the PostgreSQL database at `uri`.
  private func openPostgres(_ uri: String) throws(CLIError) -> PostgresDatabase {
    // libpq reads its default connect timeout from the environment; a URI's own
    // `connect_timeout` and a PGCONNECT_TIMEOUT already set win.
    setenv("PGCONNECT_TIMEOUT", String(Self.defaultConnectTimeoutSeconds), 0)
    do {
      return try PostgresDatabase(uri: uri)
    } catch {
      throw failure(error, while: "open")
    }
  }

  /// Opens the store for `serve`: PostgreSQL for a URI, else the SQLite file (created if
  /// missing) with `groupCommit` (nothing is expired: see `expireDue(_:)`).
  /// - Throws: `CLIError.failure` with one line, as `openCatalog` does.
  func openService(groupCommit: GroupCommitPolicy) throws(CLIError)
    -> any ServiceStore & MissionCatalogStore & TrackingStore
  {
    guard let uri = postgresURI else {
      return try openFile(mustExist: false, readOnly: false, groupCommit: groupCommit)
    }
    return try openPostgres(uri)
  }

  /// Opens the SQLite file after checking its path (see the type's documentation).
  /// - Parameters:
  ///   - mustExist: A missing file is a runtime error (commands that only read or change
  ///     stored missions) instead of a new empty database.
  ///   - readOnly: The command only reads: when the file or its directory is not writable
  ///     the database is opened read-only.
  ///   - groupCommit: How recorded events are grouped into transactions (the store's
  ///     default unless given: `serve` commits sooner, as its clients see only committed
  ///     events).
  private func openFile(
    mustExist: Bool, readOnly: Bool, groupCommit: GroupCommitPolicy = GroupCommitPolicy()
  ) throws(CLIError) -> MissionDatabase {
    let resolved = resolvedPath
    guard resolved != ":memory:" else {
      return try connect(resolved, readOnly: false, groupCommit: groupCommit)
    }
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
    return try connect(
      resolved, readOnly: readOnly && !(writable && directoryWritable), groupCommit: groupCommit)
  }

  /// Removes the database file and its SQLite side files: for an import that created the
  /// file and then failed, so no empty database is left behind.
  func removeFiles() {
    guard resolvedPath != ":memory:" else { return }
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(resolvedPath + suffix) }
  }

  /// Expires the open or accepted missions whose deadline has passed, each with its
  /// recorded transition: the store's clock tick, taken by the commands that change missions
  /// or track before they do, so that a mission past its deadline is never accepted or
  /// started.
  /// - Throws: `CLIError.failure` with one line (a read-only file says so).
  func expireDue(_ database: any MissionCatalogStore) async throws(CLIError) {
    do {
      try await database.expireDue(at: Date())
    } catch {
      throw failure(error, while: "expire missions past their deadline in")
    }
  }

  /// Runs `body` as `CLIError.asyncRuntime` does, never showing a PostgreSQL URI's password
  /// (a store error may name the database).
  func runtime<T>(_ body: () async throws -> T) async throws(CLIError) -> T {
    do {
      return try await CLIError.asyncRuntime(body)
    } catch {
      guard let uri = postgresURI else { throw error }
      let text = PostgresURIText(uri).redacting(error.message)
      if case .usage = error { throw .usage(text) }
      throw .failure(text)
    }
  }

  private func connect(_ resolved: String, readOnly: Bool, groupCommit: GroupCommitPolicy)
    throws(CLIError) -> MissionDatabase
  {
    do {
      return try MissionDatabase(
        path: resolved,
        configuration: StoreConfiguration(readOnly: readOnly, groupCommit: groupCommit))
    } catch {
      throw failure(error, while: "open")
    }
  }

  /// The one line for a store error on this database, met while doing `what`.
  private func failure(_ error: any Error, while what: String) -> CLIError {
    if let uri = postgresURI {
      let text = PostgresURIText(uri)
      return .failure("cannot \(what) database \(text.shown): \(text.redacting("\(error)"))")
    }
    let shown = resolvedPath.terminalSafe
    return switch error {
    case StoreError.notADatabase:
      .failure("\(shown) is not a MissionTrack database (not an SQLite file)")
    case StoreError.readOnly:
      .failure("cannot write database \(shown): it or its directory is read-only")
    default: .failure("cannot \(what) database \(shown): \(error)")
    }
  }
}
