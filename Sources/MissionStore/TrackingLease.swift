import Foundation
import MissionCatalog

/// The right to track one worker on one database: held by one process at a time (another
/// worker's tracker runs beside it).
///
/// It is an exclusive `flock(2)` on a file beside the database
/// (`DB-tracking-<worker key>.lock`, see `fileKey(ofWorker:)`) that names the holder; the
/// kernel releases it when the holder exits, however it exits, so a killed process cannot
/// leave it stuck. Lifecycle commands and readers never take it.
///
/// `@unchecked Sendable`: `descriptor` is only touched while holding `lock`.
package final class TrackingLease: TrackingLeaseHandle, @unchecked Sendable {
  /// The lock file (empty for an in-memory database, which no other process can open).
  package let path: String
  private let lock = NSLock()
  private var descriptor: Int32

  /// Takes the lease of `worker` (an id in NFC) for the database at `databasePath`.
  /// - Parameter holder: Who holds it, for the message another process gets
  ///   (e.g. "missiontrack replay").
  /// - Throws: `StoreError.trackingLeaseHeld` naming the worker and the holder (its pid)
  ///   when another process holds it; `StoreError.unreadableFile` when the lock file cannot
  ///   be created.
  init(databasePath: String, worker: String, holder: String) throws {
    if databasePath == ":memory:" || databasePath.isEmpty {
      path = ""
      descriptor = -1
      return
    }
    path = databasePath + "-tracking-" + Self.fileKey(ofWorker: worker) + ".lock"
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
        database: databasePath, worker: worker, holder: text.isEmpty ? "another process" : text)
    }
    let line = Array("pid \(getpid()) (\(holder))\n".utf8)
    _ = ftruncate(fd, 0)
    _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    descriptor = fd
  }

  deinit { release() }

  /// The part of the lock file's name that names `worker`: the id itself when it is short
  /// and only ASCII letters, digits, `_`, `.` and `-` (`local`), else its UTF-8 with every
  /// other byte as `%XX` while that stays short, else `~` and 32 hex digits of two FNV-1a
  /// hashes. The three forms never meet (`%` and `~` only in theirs), any id gives a valid
  /// file name (no `/`, at most 101 bytes), and one worker always the same name.
  static func fileKey(ofWorker worker: String) -> String {
    let plain = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-".utf8)
    var key = ""
    for byte in worker.utf8 {
      if plain.contains(byte) {
        key.unicodeScalars.append(Unicode.Scalar(byte))
      } else {
        key += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
      }
    }
    if key.utf8.count <= 100 { return key }
    func fnv1a(_ basis: UInt64) -> String {
      var hash = basis
      for byte in worker.utf8 {
        hash ^= UInt64(byte)
        hash &*= 0x100_0000_01b3
      }
      let hex = String(hash, radix: 16)
      return String(repeating: "0", count: 16 - hex.count) + hex
    }
    return "~" + fnv1a(0xcbf2_9ce4_8422_2325) + fnv1a(0x6c62_272e_07bb_0142)
  }

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
