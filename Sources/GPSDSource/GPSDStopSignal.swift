import Foundation
import Synchronization

/// A one-way stop request from the stream's consumer to its reader thread.
final class GPSDStopSignal: Sendable {
  private let requested = Mutex(false)

  /// Whether a stop has been requested.
  var isRequested: Bool { requested.withLock { $0 } }

  /// Requests a stop. Idempotent.
  func request() { requested.withLock { $0 = true } }

  /// Sleeps for `duration` in short slices, returning early (true) when a stop is requested.
  func wait(for duration: Duration, slice: Duration) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: duration)
    while clock.now < deadline {
      if isRequested { return true }
      let remaining = clock.now.duration(to: deadline)
      Thread.sleep(forTimeInterval: min(remaining, slice).seconds)
    }
    return isRequested
  }
}
