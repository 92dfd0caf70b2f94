import Foundation

/// A POSIX read-write lock: any number of readers at once, or one writer.
///
/// `MissionDirectory` is read by every nearby request on every server thread and written
/// only when a mission changes; under an exclusive lock the readers queued behind each
/// other (a futex sleep and wake per collision, a tenth of a loaded server's time).
final class ReadWriteLock: @unchecked Sendable {
  private let lock = UnsafeMutablePointer<pthread_rwlock_t>.allocate(capacity: 1)

  init() {
    lock.initialize(to: pthread_rwlock_t())
    pthread_rwlock_init(lock, nil)
  }

  deinit {
    pthread_rwlock_destroy(lock)
    lock.deallocate()
  }

  /// `body`'s result, computed while holding the lock shared with other readers.
  func reading<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    pthread_rwlock_rdlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body()
  }

  /// `body`'s result, computed while holding the lock alone.
  func writing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    pthread_rwlock_wrlock(lock)
    defer { pthread_rwlock_unlock(lock) }
    return try body()
  }
}
