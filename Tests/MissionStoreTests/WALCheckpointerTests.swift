import Foundation
import Testing

@testable import MissionStore

/// The write-ahead log is copied into the database beside the writer, and stays near the
/// threshold while the writer commits back to back.
@Suite struct WALCheckpointerTests {
  /// Bytes of a log of `pages` pages of 4,096 bytes (a 32-byte header, 24 bytes per frame).
  private static func logBytes(pages: Int) -> Int { 32 + pages * (24 + 4096) }

  private static func size(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
  }

  /// One statement inserting `count` rows of a page each.
  private static func insert(_ count: Int) -> String {
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count)) "
      + "INSERT INTO t SELECT randomblob(4000) FROM n"
  }

  /// A writer on a new database at `path` with one table, `t`, told its log's length by a
  /// checkpointer whose threshold is 50 pages.
  private static func writer(at path: String) throws -> (SQLiteConnection, WALCheckpointer) {
    let writer = try SQLiteConnection(path: path, readOnly: false)
    try writer.execute("PRAGMA journal_mode = WAL")
    try writer.execute("CREATE TABLE t (x BLOB NOT NULL)")
    let checkpointer = WALCheckpointer(path: path, synchronous: .full, threshold: 50)
    try writer.afterEachCommit { checkpointer.noteCommit(logPages: $1, on: $0) }
    return (writer, checkpointer)
  }

  @Test func aLogPastTheThresholdIsCopiedAndStaysWithinTwiceIt() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    let (writer, checkpointer) = try Self.writer(at: path)
    // 400 commits of a page or more each, back to back: without the checkpointer (which
    // also turns SQLite's own checkpoints off) the log grows to some 1,200 pages. With it,
    // to twice the threshold and what the writer commits while a checkpoint of the
    // checkpointer's thread still runs (the slack, for a loaded host).
    var largestLog = 0
    for _ in 0..<400 {
      try writer.execute("INSERT INTO t VALUES (randomblob(4000))")
      largestLog = max(largestLog, Self.size(path + "-wal"))
    }
    #expect(largestLog <= Self.logBytes(pages: 300), "the log grew to \(largestLog) bytes")
    // Copied into the database file, by the checkpointer or the writer.
    checkpointer.close()
    #expect(Self.size(path) > 300 * 4096, "the database file holds \(Self.size(path)) bytes")
    let reader = try SQLiteConnection(path: path, readOnly: true)
    #expect(try reader.integer("SELECT count(*) FROM t") == 400)
    reader.close()
    writer.close()
  }

  @Test func aLogUnderTwiceTheThresholdIsCopiedBesideTheWriter() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    let (writer, checkpointer) = try Self.writer(at: path)
    // 60 pages in one commit: past the threshold, under twice it, so only the checkpointer's
    // thread copies them.
    try writer.execute(Self.insert(60))
    let deadline = Date().addingTimeInterval(10)
    while Self.size(path) < 55 * 4096 && Date() < deadline { usleep(10_000) }
    #expect(Self.size(path) >= 55 * 4096, "the database file holds \(Self.size(path)) bytes")
    // Closed, it starts no checkpoint: a second commit past the threshold stays in the log.
    checkpointer.close()
    let copied = Self.size(path)
    try writer.execute(Self.insert(60))
    usleep(200_000)
    #expect(Self.size(path) == copied)
    writer.close()
  }

  /// A `MissionDatabase` hands its log to its checkpointer: SQLite's own checkpoint (every
  /// 1,000 pages, in the commit) is off, and a log past `checkpointPages` is copied.
  @Test func aMissionDatabaseCheckpointsAtItsThresholdNotSQLites() throws {
    let directory = try TemporaryDirectory()
    let path = directory.path()
    let database = try Fixtures.database(in: directory)
    try database.withConnection { try $0.execute("CREATE TABLE t (x BLOB NOT NULL)") }
    let before = Self.size(path)
    let threshold = MissionDatabase.checkpointPages
    // 2,000 pages: past SQLite's 1,000, under the threshold; they stay in the log.
    try database.withConnection { try $0.execute(Self.insert(2_000)) }
    usleep(300_000)
    #expect(Self.size(path) == before, "copied at 2,000 pages: \(Self.size(path)) bytes")
    // Past the threshold, under twice it, so the checkpointer's thread copies.
    try database.withConnection { try $0.execute(Self.insert(threshold)) }
    let deadline = Date().addingTimeInterval(30)
    while Self.size(path) < (threshold + 1_500) * 4096 && Date() < deadline { usleep(20_000) }
    #expect(
      Self.size(path) >= (threshold + 1_500) * 4096,
      "the database file holds \(Self.size(path)) bytes")
    try database.close()
  }
}
