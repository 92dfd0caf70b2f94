import Foundation
import MissionTracking
import Synchronization

/// A MissionTrack database: missions, lifecycle transitions, tracks, events, geofence state
/// and ingest statistics in one SQLite file.
///
/// Opening a file creates it if needed, switches it to WAL, sets `synchronous`,
/// `busy_timeout` and `foreign_keys`, and applies the schema migrations in one transaction.
/// A file written by a newer MissionTrack is refused with `StoreError.newerSchema` and left
/// as it was.
///
/// One instance is one writing connection. Its calls are serialised by an internal lock, so
/// an instance may be shared between tasks and threads, with two exceptions that never wait
/// for a commit under way (which holds the lock while it writes and syncs): `record(_:)` of
/// a mission already seen only adds to the pending group, and the reads a service makes
/// from its request and background threads (a device, the change feed, the outbox's head
/// and webhooks) use a second, read-only connection (`withCommittedReader`). A reader that
/// must not wait for the writer's other calls (listing events while a tracker records)
/// opens its own instance on the same file — WAL lets it read the last committed state
/// without blocking or being blocked.
///
/// `@unchecked Sendable`: all mutable state (the connection, its cached statements, the
/// counters) is only touched while holding `lock`, what recording shares with the commit
/// (the pending batch) while holding `recordingLock`, and the reader while holding
/// `readerLock`.
package final class MissionDatabase: @unchecked Sendable {
  /// The schema version this build writes (`PRAGMA user_version`).
  package static var schemaVersion: Int { SchemaMigration.all.last?.version ?? 0 }

  /// The write-ahead log's length, in pages, at which it is copied into the database file
  /// (by `WALCheckpointer`; SQLite's default is 1,000). Phones of 1,000 workers change some
  /// 3.5 pages each per position, mostly the same leaves again and again: a checkpoint
  /// copies each page once however often the log holds it, so the longer the log, the fewer
  /// writes per position. 1,000 pages wrote nearly every page it copied; 5,000 (20 MiB)
  /// took OsmAnd from 14,700 to 15,300 positions/s; 20,000 (80 MiB; the log file grows to
  /// about twice that) from 19,900 to 20,700 (medians of 5 runs, `Tools/bench-ingest`).
  static let checkpointPages = 20_000

  /// The file (or `:memory:`).
  package let path: String
  /// How the database was opened.
  package let configuration: StoreConfiguration

  private let lock = NSLock()
  /// How often `interrupt()` was called: a long phase of an import that runs no statement
  /// (reading the file) stops when it changes (`interruptCheck()`). Atomic, not under `lock`.
  let interruptions = Atomic<Int>(0)
  /// Guards what `record(_:)` shares with the commit: taken alone, or inside `lock`, never
  /// the other way round. A commit holds `lock` while it writes and syncs; recording a
  /// known mission's events needs only this one, so it goes on meanwhile.
  private let recordingLock = NSLock()
  /// Guarded by `lock`: nil once closed.
  var connection: SQLiteConnection?
  /// Guards `reader` and `readerClosed`: taken alone, or inside `lock`.
  private let readerLock = NSLock()
  /// Guarded by `readerLock`: a second, read-only connection for reads of committed rows
  /// from request and background threads (`withCommittedReader`), opened at first use.
  private var reader: SQLiteConnection?
  /// Guarded by `readerLock`: true once closed (no reader is opened again).
  private var readerClosed = false
  /// Checkpoints the writer's log beside it; nil for a read-only or in-memory database.
  private var checkpointer: WALCheckpointer?
  /// Guarded by `recordingLock`: events accepted by `record(_:)` and not yet taken by a
  /// commit.
  var batch = EventBatch()
  /// Guarded by `recordingLock`: how many events the commit under way holds.
  var committingCount = 0
  /// Guarded by `recordingLock`: false once closed (recording is refused).
  var acceptsRecords = true
  /// Guarded by `recordingLock`: mission ids known to exist (events for others are refused
  /// early).
  var knownMissions: Set<String> = []
  /// Guarded by `recordingLock`: a commit failure from the background timer, thrown by the
  /// next call.
  var deferredError: (any Error)?
  /// Guarded by `lock`.
  var counters = IngestCounters()
  /// Guarded by the lock `changes(after:)` reads under (`withCommittedReader`'s):
  /// `PRAGMA data_version` when the change feed was last read.
  var observedDataVersion: Int64?
  /// Guarded by `lock`: the multi-row inserts of fix runs by row count (see
  /// `writeFixRun`), held here so the hot path needs no lookup by SQL text.
  var trackRuns: [MultiRowStatement<TrackRow>?] = []
  var trackPlainRuns: [MultiRowStatement<TrackRow>?] = []
  var eventRuns: [MultiRowStatement<FixEventRow>?] = []
  /// Guarded by `lock`: a commit's per-mission statements by row count (see
  /// `checkTrackedLocked`, `saveFenceStatesLocked`, `saveTravelledLocked`).
  var trackedChecks: [MultiRowStatement<SQLiteStatement.Parameter>?] = []
  var fenceStateRuns: [MultiRowStatement<FenceStateRow>?] = []
  var travelledRuns: [MultiRowStatement<TravelledRow>?] = []
  /// Guarded by `lock`: the query of one mission by id with its parameter and columns
  /// resolved (see `missionLocked`), held so a lookup per nearby match resolves nothing.
  var missionByID:
    (statement: SQLiteStatement, id: SQLiteStatement.Parameter, columns: MissionColumns)?

  /// Opens (creating if needed) the database at `path`.
  ///
  /// - Parameters:
  ///   - path: A file path, or `:memory:` for a private in-memory database.
  ///   - configuration: Durability, busy timeout, group commit, read-only.
  /// - Throws: `StoreError.newerSchema` for a file from a newer version (untouched),
  ///   `StoreError.outdatedSchema` for a read-only open of an old file, `StoreError.sqlite`
  ///   when SQLite fails (for example the file is not a database).
  package convenience init(path: String, configuration: StoreConfiguration = StoreConfiguration())
    throws
  {
    try self.init(path: path, configuration: configuration, migrations: SchemaMigration.all)
  }

  /// Opens with an explicit migration list (tests use it to simulate upgrades).
  init(path: String, configuration: StoreConfiguration, migrations: [SchemaMigration]) throws {
    guard configuration.groupCommit.maxEvents >= 1 else {
      throw StoreError.invalidConfiguration("group commit maxEvents must be at least 1")
    }
    guard configuration.groupCommit.maxDelay >= .zero else {
      throw StoreError.invalidConfiguration("group commit maxDelay must not be negative")
    }
    self.path = path
    self.configuration = configuration
    let connection = try SQLiteConnection(path: path, readOnly: configuration.readOnly)
    let migrator = SchemaMigrator(migrations: migrations)
    do {
      try connection.setBusyTimeout(milliseconds: configuration.busyTimeoutMilliseconds)
      // Check the version before anything writes: a newer file must stay untouched.
      try migrator.refuseNewer(connection)
      if configuration.readOnly {
        let found = try SchemaMigrator.version(of: connection)
        if found < migrator.latestVersion {
          throw StoreError.outdatedSchema(
            path: path, found: found, required: migrator.latestVersion)
        }
      } else {
        try connection.execute("PRAGMA journal_mode = WAL")
        try connection.execute("PRAGMA synchronous = \(configuration.synchronous.rawValue)")
      }
      try connection.execute("PRAGMA foreign_keys = ON")
      // 32 MiB of page cache (SQLite's default is 2 MiB): large imports and the per-batch
      // index updates stay in memory instead of spilling to the WAL mid-transaction.
      try connection.execute("PRAGMA cache_size = -32768")
      if !configuration.readOnly {
        try migrator.migrate(connection)
        if path != ":memory:" {
          let checkpointer = WALCheckpointer(
            path: path, synchronous: configuration.synchronous, threshold: Self.checkpointPages)
          try connection.afterEachCommit { checkpointer.noteCommit(logPages: $1, on: $0) }
          self.checkpointer = checkpointer
        }
      }
    } catch {
      connection.close()
      throw error
    }
    self.connection = connection
  }

  deinit {
    // Best effort: commit what was accepted, then close.
    if let connection { try? commitPendingLocked(connection) }
    releaseConnectionsLocked()
  }

  /// Runs `body` with a connection that sees what is committed — a second, read-only one of
  /// the same file, so that it never waits for a commit under way (WAL lets it read the
  /// last committed state while the writer writes and syncs). Only for reads that need no
  /// pending event: the writer's group is not committed first. A `:memory:` database (a
  /// second connection would be another database) and a read-only one use the connection.
  func withCommittedReader<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
    if path == ":memory:" || configuration.readOnly { return try withConnection(body) }
    readerLock.lock()
    defer { readerLock.unlock() }
    guard !readerClosed else { throw StoreError.closed(path: path) }
    if let reader { return try body(reader) }
    let opened = try SQLiteConnection(path: path, readOnly: true)
    try opened.setBusyTimeout(milliseconds: configuration.busyTimeoutMilliseconds)
    reader = opened
    return try body(opened)
  }

  /// Closes the reader (see `withCommittedReader`); later reads throw `StoreError.closed`.
  private func closeReader() {
    readerLock.lock()
    defer { readerLock.unlock() }
    reader?.close()
    reader = nil
    readerClosed = true
  }

  /// Runs `body` with the live connection while holding the lock.
  func withConnection<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
    lock.lock()
    defer { lock.unlock() }
    guard let connection else { throw StoreError.closed(path: path) }
    try recording { try throwDeferredErrorLocked() }
    return try body(connection)
  }

  /// Runs `body` while holding `recordingLock` (see there).
  func recording<T>(_ body: () throws -> T) rethrows -> T {
    recordingLock.lock()
    defer { recordingLock.unlock() }
    return try body()
  }

  /// Throws (once) the failure of a background commit; holding `recordingLock`.
  func throwDeferredErrorLocked() throws {
    if let error = deferredError {
      deferredError = nil
      throw error
    }
  }

  /// Runs `body` while holding the lock, with or without a connection.
  func locked<T>(_ body: () throws -> T) rethrows -> T {
    lock.lock()
    defer { lock.unlock() }
    return try body()
  }

  /// Commits pending events and closes the connection. Later calls throw
  /// `StoreError.closed`; closing twice does nothing.
  /// - Throws: `StoreError` when the final commit fails (the connection is closed anyway).
  package func close() throws {
    try locked {
      guard let connection else { return }
      recording { acceptsRecords = false }
      defer { releaseConnectionsLocked() }
      try commitPendingLocked(connection)
    }
  }

  /// Closes the connection *without* committing pending events, as a crash would.
  func abandon() {
    locked {
      releaseConnectionsLocked()
      recording {
        acceptsRecords = false
        batch = EventBatch()
      }
    }
  }

  /// Holding `lock`: closes the reader and the connection and drops what was prepared on
  /// them (every later call throws `StoreError.closed`).
  private func releaseConnectionsLocked() {
    closeReader()
    checkpointer?.close()
    connection?.close()
    connection = nil
    trackRuns = []
    trackPlainRuns = []
    eventRuns = []
    trackedChecks = []
    fenceStateRuns = []
    travelledRuns = []
    missionByID = nil
  }

  /// Takes the right to track `worker` on this database (see `TrackingLease`): one
  /// tracking writer per worker; keep the lease for as long as this process tracks it.
  /// - Throws: `StoreError.invalidWorker` for an id against `Identifier`;
  ///   `StoreError.trackingLeaseHeld` naming the worker and the process that holds it.
  package func claimTracking(holder: String, worker: String = Worker.localID) throws
    -> TrackingLease
  {
    try TrackingLease(databasePath: path, worker: try Self.checkedWorkerID(worker), holder: holder)
  }

  /// Runs `PRAGMA integrity_check` and returns its lines: `["ok"]` for a sound file.
  /// - Complexity: O(size of the database).
  package func integrityCheck() throws -> [String] {
    try withConnection { try $0.strings("PRAGMA integrity_check") }
  }

  /// The journal mode in effect (`wal` for a file, `memory` for `:memory:`).
  package func journalMode() throws -> String {
    try withConnection { try $0.strings("PRAGMA journal_mode").first ?? "" }
  }

  /// Counts of what the recorder has committed since the database was opened.
  package var ingestCounters: IngestCounters { locked { counters } }
}
