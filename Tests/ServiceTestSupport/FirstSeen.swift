import Foundation

/// When a condition on the world outside the test first held (a socket closed, a device let
/// go), seen by a thread of its own that polls it every 5 ms.
///
/// A test that polls on its own task learns of the change only when that task runs again,
/// which on two loaded cores can be seconds late, and then measures its own wait. This
/// thread records the moment itself, so a bound such as "closed within 1 s" is checked
/// against when it happened, not against when the test looked.
public enum FirstSeen {
  /// Starts polling `condition` now, on a new thread, for up to `timeout` seconds; returns
  /// when it first held, or nil when it did not within `timeout`. The timeout only guards
  /// against a hang: check the bound under test on the returned moment.
  public static func moment(
    within timeout: Double = 60, of condition: @escaping @Sendable () -> Bool
  ) -> Task<Date?, Never> {
    let deadline = Date().addingTimeInterval(timeout)
    let (stream, continuation) = AsyncStream.makeStream(of: Date?.self)
    Thread {
      var seen: Date?
      while seen == nil, Date() < deadline {
        if condition() { seen = Date() } else { usleep(5_000) }
      }
      continuation.yield(seen)
      continuation.finish()
    }.start()
    return Task {
      for await seen in stream { return seen }
      return nil
    }
  }
}
