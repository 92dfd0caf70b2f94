import Foundation

/// The right to track on one database: held by one process at a time.
///
/// It is an exclusive `flock(2)` on a file beside the database (`DB-tracking.lock`) that
/// names the holder; the kernel releases it when the holder exits, however it exits, so a
/// killed process cannot leave it stuck. Lifecycle commands and readers never take it.
///
/// `@unchecked Sendable`: `descriptor` is only touched while holding `lock`.
package final class TrackingLease: @unchecked Sendable {
  /// The lock file (empty for an in-memory database, which no other process can open).
  package let path: String
  private let lock = NSLock()
  private var descriptor: Int32

  /// Takes the lease for the database at `databasePath`.
  /// - Parameter holder: Who holds it, for the message another process gets
  ///   (e.g. "missiontrack replay").
  /// - Throws: `StoreError.trackingLeaseHeld` naming the holder (its pid) when another
  ///   process holds it; `StoreError.unreadableFile` when the lock file cannot be created.
  init(databasePath: String, holder: String) throws {
    if databasePath == ":memory:" || databasePath.isEmpty {
      path = ""
      descriptor = -1
      return
    }
    path = databasePath + "-tracking.lock"
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard fd >= 0 else {
      throw StoreError.unreadableFile(
        path: path, reason: "cannot create the tracking lock: \(String(cString: strerror(errno)))")
    }
    guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
      let held = errno == EWOULDBLOCK
      let reason = String(cString: strerror(errno))
      var bytes = [UInt8](repeating: 0, count: 256)
      let count = pread(fd, &bytes, bytes.count, 0)
      close(fd)
      guard held else {
        throw StoreError.unreadableFile(path: path, reason: "cannot lock: \(reason)")
      }
      let text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      throw StoreError.trackingLeaseHeld(
        database: databasePath, holder: text.isEmpty ? "another process" : text)
    }
    let line = Array("pid \(getpid()) (\(holder))\n".utf8)
    _ = ftruncate(fd, 0)
    _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    descriptor = fd
  }

  deinit { release() }

  /// Gives the lease up (also done when the lease is deallocated or the process exits).
  package func release() {
    lock.withLock {
      guard descriptor >= 0 else { return }
      _ = ftruncate(descriptor, 0)
      close(descriptor)
      descriptor = -1
    }
  }
}
