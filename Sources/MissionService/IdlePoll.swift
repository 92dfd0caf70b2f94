import Foundation
import Synchronization

/// Keeps a server thread awake for a moment after it answers, while its requests come back
/// to back: before the thread goes back to sleep in libmicrohttpd, it polls its own epoll
/// descriptor (which leaves the events there for libmicrohttpd) for up to a window.
///
/// A sequential client (one connection, each request sent once the last answer is in) would
/// otherwise wake a sleeping thread for every request, and waking an idle core is the
/// largest cost of such a round trip on a virtual machine. On the 2-core VM this was measured
/// on, nearby on one keep-alive connection went from 13.2k–14.0k to 18.5k–20.6k requests/s
/// (alternating runs on a quiet machine).
///
/// A thread polls only when it serves that one connection and its last idle gap (from an
/// answer to the next request it saw) was at most twice the window, so a client slower than
/// that (a script, a browser) costs no polling at all, and a poll costs at most the window
/// of CPU time per request.
///
/// Polling only pays while the cores are otherwise idle. When other work keeps them busy, a
/// sleeping thread is woken cheaply and ahead of that work, while a polling thread that gave
/// its core away waits for its turn (with two busy loops on 2 cores, polling cut one
/// connection from 8.3k–14.3k to 7.2k–9.2k requests/s). So a thread whose poll lost its
/// core for longer than a client needs to send a request (an iteration took over 0.5 ms) does
/// not poll for the next second; with that pause, the same test gave 12.2k requests/s with
/// polling and 12.3k without.
final class IdlePoll: Sendable {
  private let windowNanoseconds: UInt64
  private let preemptedNanoseconds: UInt64
  private let pauseNanoseconds: UInt64
  private let caught = Atomic<Int>(0)
  private let missed = Atomic<Int>(0)
  private let preempted = Atomic<Int>(0)

  /// Polls for up to `window` (zero never polls). A poll iteration longer than
  /// `preemptedAfter` means the thread lost its core to work that holds it (a time slice),
  /// not to a client that runs briefly to send its next request; the thread then does not
  /// poll for `pause`.
  init(
    window: Duration, preemptedAfter: Duration = .microseconds(500), pause: Duration = .seconds(1)
  ) {
    func nanoseconds(_ duration: Duration) -> UInt64 {
      let (seconds, attoseconds) = duration.components
      return UInt64(max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
    windowNanoseconds = nanoseconds(window)
    preemptedNanoseconds = nanoseconds(preemptedAfter)
    pauseNanoseconds = nanoseconds(pause)
  }

  /// Polls that saw the thread's next work arrive, polls that ran out of time, and polls
  /// cut short because the thread lost its core.
  var counts: (caught: Int, missed: Int, preempted: Int) {
    (
      caught.load(ordering: .relaxed), missed.load(ordering: .relaxed),
      preempted.load(ordering: .relaxed)
    )
  }

  /// Notes that the calling server thread has a new request (libmicrohttpd's first callback
  /// of each request).
  func requestStarted() {
    guard let pace = Self.pace() else { return }
    if pace.pointee.idleSince != 0 {
      pace.pointee.lastGap = Self.now() &- pace.pointee.idleSince
      pace.pointee.idleSince = 0
    }
  }

  /// Called on the server thread that has just answered a request: if the thread serves
  /// only that connection (`alone`) and its requests have been coming back to back, polls
  /// `epollDescriptor` (that thread's) until the thread has work or the window ends.
  ///
  /// A thread with other connections never polls: libmicrohttpd may still hold some of them
  /// ready from its last wait, which the descriptor no longer shows.
  func answered(epollDescriptor: Int32, alone: Bool) {
    guard let pace = Self.pace() else { return }
    let start = Self.now()
    pace.pointee.idleSince = start
    guard alone, windowNanoseconds > 0, epollDescriptor >= 0,
      pace.pointee.lastGap <= 2 * windowNanoseconds, start >= pace.pointee.pausedUntil
    else { return }
    var entry = pollfd(fd: epollDescriptor, events: Int16(POLLIN), revents: 0)
    var last = start
    while last &- start < windowNanoseconds {
      let ready = poll(&entry, 1, 0)
      if ready > 0 {
        caught.add(1, ordering: .relaxed)
        return
      }
      if ready < 0 && errno != EINTR { return }
      // Only time no other thread wants: a client or another server thread ready to run on
      // this core goes first.
      sched_yield()
      let now = Self.now()
      if now &- last > preemptedNanoseconds {
        // The core went to another thread. A sleeping thread would have been woken ahead
        // of it, where a polling one waits for its turn: sleep while the cores are busy.
        pace.pointee.pausedUntil = now &+ pauseNanoseconds
        preempted.add(1, ordering: .relaxed)
        return
      }
      last = now
    }
    missed.add(1, ordering: .relaxed)
  }

  /// What one server thread knows of its own pace.
  private struct Pace {
    /// When the thread last answered, in `now()` nanoseconds (0: a request came since).
    var idleSince: UInt64 = 0
    /// The last gap from an answer to the next request, nanoseconds (unknown: the maximum).
    var lastGap = UInt64.max
    /// No poll before this time (the thread lost its core while polling).
    var pausedUntil: UInt64 = 0
  }

  /// Each server thread's `Pace`, made the first time the thread asks and freed when the
  /// thread exits; nil if the system had no key to spare (then no thread polls).
  private static let paceKey: pthread_key_t? = {
    var key = pthread_key_t()
    return pthread_key_create(&key) { $0?.deallocate() } == 0 ? key : nil
  }()

  private static func pace() -> UnsafeMutablePointer<Pace>? {
    guard let key = paceKey else { return nil }
    if let existing = pthread_getspecific(key) {
      return existing.assumingMemoryBound(to: Pace.self)
    }
    let created = UnsafeMutablePointer<Pace>.allocate(capacity: 1)
    created.initialize(to: Pace())
    guard pthread_setspecific(key, created) == 0 else {
      created.deallocate()
      return nil
    }
    return created
  }

  private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
