import Foundation

/// Checkpoints a database's write-ahead log on a thread and a connection of its own, so that
/// no commit waits for a whole checkpoint.
///
/// SQLite checkpoints in the commit after which the log holds `wal_autocheckpoint` pages:
/// with 5,000 pages (`MissionDatabase.checkpointPages`) that commit took long enough for an
/// Overland batch waiting on it to see a p99 of 48 ms instead of 30. Here the writer tells
/// its log's length after each commit (`SQLiteConnection.afterEachCommit`) and a passive
/// checkpoint runs beside it, one at a time, while the writer goes on committing.
///
/// The log starts again from its beginning only when a commit finds all of it copied, which
/// a writer that commits back to back rarely does while another thread copies (the log grew
/// to 55 MB in 15 s of Overland batches). So once it holds twice the threshold the writer
/// copies the rest itself, between two commits: by then little is left to copy, and the log
/// stays near twice the threshold (41 MB at 5,000 pages; 171 MB at 20,000). A checkpoint
/// that fails or finds another under way (another process's) leaves the log as it is; the
/// next commit past the threshold tries again.
final class WALCheckpointer: @unchecked Sendable {
  private let path: String
  private let synchronous: StoreConfiguration.Synchronous
  private let threshold: Int
  private let queue = DispatchQueue(label: "missiontrack.checkpoint")
  private let lock = NSLock()
  /// Guarded by `lock`: whether a checkpoint is queued or under way.
  private var scheduled = false
  /// Guarded by `lock`: true once closed (no checkpoint starts).
  private var closed = false
  /// Used on `queue` only: the checkpoints' connection, opened at the first.
  private var connection: SQLiteConnection?

  /// A checkpointer for the database file at `path`, whose checkpoints sync as
  /// `synchronous` asks, once the log holds `threshold` pages.
  init(path: String, synchronous: StoreConfiguration.Synchronous, threshold: Int) {
    self.path = path
    self.synchronous = synchronous
    self.threshold = threshold
  }

  /// Told the log's length after a commit of `writer`, on its committing thread: starts a
  /// checkpoint when the log holds `threshold` pages or more and none is under way, or
  /// copies the rest on `writer` itself when it holds twice as many.
  func noteCommit(logPages: Int, on writer: SQLiteConnection) {
    guard logPages >= threshold else { return }
    if logPages >= 2 * threshold {
      // Busy while this checkpointer copies: the next commit tries again.
      try? writer.checkpointPassively()
      return
    }
    let starts = lock.withLock { () -> Bool in
      guard !scheduled, !closed else { return false }
      scheduled = true
      return true
    }
    if starts { queue.async { self.checkpoint() } }
  }

  /// One passive checkpoint.
  private func checkpoint() {
    defer { lock.withLock { scheduled = false } }
    guard !lock.withLock({ closed }) else { return }
    do {
      if connection == nil {
        let opened = try SQLiteConnection(path: path, readOnly: false)
        try opened.execute("PRAGMA synchronous = \(synchronous.rawValue)")
        connection = opened
      }
      try connection?.checkpointPassively()
    } catch {
      // Busy or failed: nothing is lost (the log keeps every page), and the next commit
      // past the threshold tries again.
    }
  }

  /// Waits for a checkpoint under way, then closes the connection; no checkpoint starts
  /// afterwards. Idempotent.
  func close() {
    lock.withLock { closed = true }
    queue.sync {
      connection?.close()
      connection = nil
    }
  }
}
