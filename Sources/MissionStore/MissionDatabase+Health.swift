import Foundation

extension MissionDatabase {
  /// The least free space a writable database needs on its file system, bytes (1 MiB).
  package static let minimumFreeBytes: UInt64 = 1 << 20

  /// Checks that the database takes writes now: pending events commit, the write lock can
  /// be taken (`BEGIN IMMEDIATE`, then rolled back), and the file system has at least
  /// `minimumFreeBytes` free (for a file database).
  /// - Throws: `StoreError` when it does not.
  package func checkWritable() throws {
    try withConnection { connection in
      try commitPendingLocked(connection)
      try connection.execute("BEGIN IMMEDIATE")
      try connection.execute("ROLLBACK")
    }
    guard path != ":memory:", !path.isEmpty else { return }
    let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
    var stats = statvfs()
    guard statvfs(directory, &stats) == 0 else { return }
    let free = UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    if free < Self.minimumFreeBytes {
      throw StoreError.unreadableFile(
        path: path, reason: "only \(free) bytes free on its file system")
    }
  }
}
