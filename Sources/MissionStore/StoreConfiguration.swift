/// How a `MissionDatabase` opens its file and commits.
package struct StoreConfiguration: Sendable, Hashable {
  /// SQLite's `synchronous` setting in WAL mode.
  package enum Synchronous: String, Sendable, Hashable, CaseIterable {
    /// fsync the WAL on every commit: a committed batch survives power loss.
    case full = "FULL"
    /// fsync only at checkpoints: a committed batch survives a crash of the process (the
    /// WAL is in the OS page cache), but a power loss may roll back the last commits. The
    /// database is never corrupted either way.
    case normal = "NORMAL"
  }

  /// Open without writing (no migration, no WAL switch); a reader beside a writer.
  package var readOnly: Bool
  /// Durability of each commit (default `.full`, see README "Durability").
  package var synchronous: Synchronous
  /// How long to wait for another connection's write lock, in milliseconds (default 5,000).
  package var busyTimeoutMilliseconds: Int
  /// Group commit for `record(_:)`.
  package var groupCommit: GroupCommitPolicy

  /// Creates a configuration; the defaults suit a field rig.
  package init(
    readOnly: Bool = false, synchronous: Synchronous = .full,
    busyTimeoutMilliseconds: Int = 5000, groupCommit: GroupCommitPolicy = GroupCommitPolicy()
  ) {
    self.readOnly = readOnly
    self.synchronous = synchronous
    self.busyTimeoutMilliseconds = busyTimeoutMilliseconds
    self.groupCommit = groupCommit
  }
}
