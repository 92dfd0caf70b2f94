import Foundation
import ServiceTestSupport

#if canImport(Glibc)
  import Glibc
#endif

/// A private PostgreSQL 15 + PostGIS cluster for tests: never the system cluster, never port
/// 5432 (DESIGN §10).
///
/// The cluster lives in a temporary directory owned by the `postgres` user (initdb refuses
/// root, so as root every PostgreSQL program runs through `runuser -u postgres`), listens on
/// a free loopback port and keeps its socket in a directory of its own. `initdb` runs once
/// per machine into a cached template directory that each cluster copies, and PostGIS is
/// created once per cluster in a template database that each `createDatabase()` clones, so
/// a cluster starts in a few seconds and a database in a fraction of one.
///
/// It is stopped when released (`deinit`), and a watchdog process stops it and removes its
/// directory when the test process dies first; clusters left by a killed watchdog are swept
/// by the next start (their `owner.pid` names a dead process).
public final class PostgresTestCluster: @unchecked Sendable {
  // @unchecked Sendable: every stored property is immutable except `databases`, which is
  // only touched under `lock`; the cluster's processes are driven by blocking calls.

  /// Where Debian puts PostgreSQL 15's programs.
  public static let binaries = "/usr/lib/postgresql/15/bin"

  /// Why the PostgreSQL tests cannot run on this machine; nil when they can.
  public static let unavailableReason: String? = {
    let files = FileManager.default
    guard files.isExecutableFile(atPath: binaries + "/initdb") else {
      return "PostgreSQL 15 is not installed (\(binaries)/initdb): run Tools/setup"
    }
    guard files.fileExists(atPath: "/usr/share/postgresql/15/extension/postgis.control") else {
      return "PostGIS 3 for PostgreSQL 15 is not installed: run Tools/setup"
    }
    return nil
  }()

  /// Whether the PostgreSQL tests can run here.
  public static var isAvailable: Bool { unavailableReason == nil }

  /// One cluster shared by the tests of a process that do not stop it.
  public static let shared = Result { try PostgresTestCluster() }

  /// The cluster's directory (data, socket, log, owner pid).
  public let directory: URL
  /// The loopback port it listens on.
  public let port: Int
  private let lock = NSLock()
  private var databases = 0

  private var dataDirectory: String { directory.appendingPathComponent("data").path }
  private var socketDirectory: String { directory.appendingPathComponent("socket").path }
  private var logFile: String { directory.appendingPathComponent("server.log").path }

  /// Creates and starts a cluster with a template database that has PostGIS.
  public init() throws {
    guard Self.unavailableReason == nil else {
      throw Failure(description: Self.unavailableReason ?? "PostgreSQL is not installed")
    }
    Self.sweepAbandoned()
    let template = try Self.initdbTemplate()
    directory = URL(fileURLWithPath: NSTemporaryDirectory())
      .appendingPathComponent("missiontrack-pg-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(
      atPath: directory.appendingPathComponent("socket").path,
      withIntermediateDirectories: true)
    try Data("\(getpid())\n".utf8).write(to: directory.appendingPathComponent("owner.pid"))
    port = try RawHTTP.freeLoopbackPort()
    try Self.run(["/bin/cp", "-a", template + "/data", directory.path + "/data"])
    try Self.run(["/bin/chown", "-R", "postgres:postgres", directory.path], asPostgres: false)
    let script = """
      while kill -0 \(getpid()) 2>/dev/null && [ -d '\(directory.path)' ]; do sleep 1; done
      \(Self.postgresCommand(["pg_ctl", "-D", directory.path + "/data", "-m", "immediate", "stop"]).joined(separator: " "))
      rm -rf '\(directory.path)'
      """
    _ = try Self.spawn(
      ["/bin/sh", "-c", script], output: "/dev/null", errors: "/dev/null", newSession: true)
    try start()
    try sql("CREATE DATABASE missiontrack_template", database: "postgres")
    try sql("CREATE EXTENSION postgis", database: "missiontrack_template")
  }

  deinit {
    _ = try? Self.run(
      Self.postgresCommand(["pg_ctl", "-D", dataDirectory, "-m", "immediate", "stop"]),
      asPostgres: false)
    try? FileManager.default.removeItem(at: directory)
  }

  /// A fresh database with PostGIS created (and nothing else), as a libpq URI over TCP.
  public func createDatabase() throws -> String {
    let name = lock.withLock {
      databases += 1
      return "test_\(databases)"
    }
    try sql("CREATE DATABASE \(name) TEMPLATE missiontrack_template", database: "postgres")
    return uri(database: name)
  }

  /// The database name in `uri` (one of `uri(database:)`'s).
  public static func databaseName(in uri: String) -> String {
    String(uri.split(separator: "/").last?.split(separator: "?").first ?? "")
  }

  /// The libpq URI of `database` on this cluster.
  public func uri(database: String) -> String {
    "postgresql://postgres@127.0.0.1:\(port)/\(database)?connect_timeout=2"
  }

  /// Starts the server (after `stop()`), on the same port; returns when it accepts
  /// connections.
  public func start() throws {
    try Self.run(
      Self.postgresCommand([
        "pg_ctl", "-D", dataDirectory, "-l", logFile, "-w", "-t", "60", "-o",
        "-p \(port) -k \(socketDirectory) -c listen_addresses=127.0.0.1 -c fsync=off"
          + " -c full_page_writes=off -c synchronous_commit=off",
        "start",
      ]), asPostgres: false)
  }

  /// Stops the server (fast shutdown: connections are closed with an administrator's
  /// shutdown notice).
  public func stop() throws {
    try Self.run(
      Self.postgresCommand(["pg_ctl", "-D", dataDirectory, "-m", "fast", "-w", "stop"]),
      asPostgres: false)
  }

  /// Runs `text` with `psql` on `database`; returns its unaligned output.
  @discardableResult
  public func sql(_ text: String, database: String) throws -> String {
    try Self.run(
      [
        Self.binaries + "/psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h",
        "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", database, "-c", text,
      ], asPostgres: false)
  }

  // MARK: - Processes

  /// `arguments` (a program of `binaries` first) as the `postgres` user when this process
  /// is root (PostgreSQL refuses to run as root), as this user otherwise.
  private static func postgresCommand(_ arguments: [String]) -> [String] {
    let program = [binaries + "/" + arguments[0]] + arguments.dropFirst()
    return getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] + program : program
  }

  /// Runs a command to its end; its standard output, or a failure with its standard error.
  ///
  /// posix_spawn and waitpid, not Foundation's `Process`: `waitUntilExit` did not always
  /// see `pg_ctl start` end (the child stayed a zombie while it spun), and the child gets an
  /// empty signal mask here whatever the calling thread blocks.
  @discardableResult
  private static func run(_ arguments: [String], asPostgres: Bool = false) throws -> String {
    let command = asPostgres ? postgresCommand(arguments) : arguments
    let output = NSTemporaryDirectory() + "missiontrack-pg-run-\(UUID().uuidString).out"
    let errors = output.replacingOccurrences(of: ".out", with: ".err")
    defer {
      unlink(output)
      unlink(errors)
    }
    let pid = try spawn(command, output: output, errors: errors, newSession: false)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { throw Failure(description: "waitpid failed: errno \(errno)") }
    }
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    // WIFEXITED and WEXITSTATUS are macros Swift cannot import.
    let exited = status & 0x7f == 0
    let code = (status >> 8) & 0xff
    guard exited && code == 0 else {
      let message = ((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")
        .split(whereSeparator: \.isNewline).joined(separator: " ")
      throw Failure(
        description: "\(command.joined(separator: " ").prefix(200)) failed "
          + "(status \(status)): \(message)")
    }
    return text
  }

  /// Starts `command` with an empty signal mask, its standard input from /dev/null and its
  /// output and errors appended to the files named (in a session of its own when asked, so
  /// that nothing sent to the test's process group reaches it).
  private static func spawn(
    _ command: [String], output: String, errors: String, newSession: Bool
  ) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_APPEND, 0o600)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
    // POSIX_SPAWN_SETSID needs _GNU_SOURCE, which Swift's Glibc module does not define.
    let command = newSession ? ["/usr/bin/setsid"] + command : command
    var argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
    defer { for argument in argv { free(argument) } }
    var pid: pid_t = 0
    let result = posix_spawn(&pid, command[0], &actions, &attributes, &argv, environ)
    guard result == 0 else {
      throw Failure(description: "cannot start \(command[0]): errno \(result)")
    }
    return pid
  }

  /// The data directory of a fresh `initdb`, made once per machine and copied by each
  /// cluster (initdb itself takes several seconds on a busy machine).
  private static func initdbTemplate() throws -> String {
    let path = NSTemporaryDirectory() + "missiontrack-pg15-initdb-template"
    if FileManager.default.fileExists(atPath: path + "/data/PG_VERSION") { return path }
    let building = path + ".\(getpid()).\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: building, withIntermediateDirectories: true)
    try run(["/bin/chown", "postgres:postgres", building])
    try run(
      postgresCommand([
        "initdb", "-D", building + "/data", "-A", "trust", "-U", "postgres", "-E", "UTF8",
        "--locale=C", "--no-sync",
      ]))
    // Another process may have finished first: then its template is used and ours dropped.
    if rename(building, path) != 0 { try? FileManager.default.removeItem(atPath: building) }
    return path
  }

  /// Stops and removes clusters whose owning test process is gone.
  private static func sweepAbandoned() {
    let temporary = NSTemporaryDirectory()
    let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
    for name in names where name.hasPrefix("missiontrack-pg-") {
      let directory = temporary + name
      guard
        let text = try? String(contentsOfFile: directory + "/owner.pid", encoding: .utf8),
        let owner = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)),
        kill(owner, 0) != 0
      else { continue }
      _ = try? run(
        postgresCommand(["pg_ctl", "-D", directory + "/data", "-m", "immediate", "stop"]))
      try? FileManager.default.removeItem(atPath: directory)
    }
  }

  /// A failure of the cluster's set-up, in one line.
  public struct Failure: Error, CustomStringConvertible {
    /// What failed.
    public var description: String
  }
}
