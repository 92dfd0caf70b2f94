import Foundation
import Synchronization

/// A one-way stop request from a stream's consumer to its reader thread, with a self-pipe so
/// a reader blocked in `poll(2)` wakes at once instead of at its next timeout.
///
/// `Sendable`: the flag is behind a mutex and the pipe descriptors are immutable; writing a
/// byte to a pipe is thread-safe.
final class ReaderStopSignal: Sendable {
  private let requested = Mutex(false)
  /// Read end of the wake-up pipe: becomes readable once a stop is requested (-1 when the
  /// pipe could not be created; readers then rely on their poll timeout).
  let wakeDescriptor: Int32
  private let writeDescriptor: Int32

  init() {
    var fds: [Int32] = [-1, -1]
    if pipe(&fds) == 0 {
      for fd in fds {
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
      }
    } else {
      fds = [-1, -1]
    }
    wakeDescriptor = fds[0]
    writeDescriptor = fds[1]
  }

  deinit {
    if wakeDescriptor >= 0 { close(wakeDescriptor) }
    if writeDescriptor >= 0 { close(writeDescriptor) }
  }

  /// Whether a stop has been requested.
  var isRequested: Bool { requested.withLock { $0 } }

  /// Requests a stop and wakes the reader. Idempotent.
  func request() {
    let first = requested.withLock { (flag: inout Bool) -> Bool in
      defer { flag = true }
      return !flag
    }
    if first, writeDescriptor >= 0 {
      var byte: UInt8 = 1
      _ = write(writeDescriptor, &byte, 1)
    }
  }

  /// Sleeps for `duration`, returning early (true) when a stop is requested.
  func wait(for duration: Duration, slice: Duration) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: duration)
    while !isRequested {
      let remaining = clock.now.duration(to: deadline)
      if remaining <= .zero { break }
      var wake = pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)
      _ = poll(&wake, 1, ReaderStopSignal.milliseconds(min(remaining, slice)))
    }
    return isRequested
  }

  /// A poll timeout in whole milliseconds, rounded up so a short wait is not a busy loop.
  static func milliseconds(_ duration: Duration) -> Int32 {
    let (seconds, attoseconds) = duration.components
    if seconds < 0 || (seconds == 0 && attoseconds <= 0) { return 0 }
    let ms = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int32(clamping: ms)
  }
}
