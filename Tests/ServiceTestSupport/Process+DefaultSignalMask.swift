import Foundation

extension Process {
  /// Starts the process from a fresh thread whose signal mask is empty.
  ///
  /// A child inherits the spawning thread's signal mask, and the threads Swift concurrency
  /// runs tests on block SIGTERM and friends. gpsd unblocks signals only to its startup mask
  /// while it waits, and socat never does, so a child spawned from such a thread would
  /// ignore `terminate()`.
  public func runWithDefaultSignalMask() throws {
    let done = DispatchSemaphore(value: 0)
    // Written by the thread before `signal()`, read here after `wait()`: the semaphore
    // orders the two accesses, so there is no race.
    nonisolated(unsafe) var failure: (any Error)?
    let thread = Thread {
      var empty = sigset_t()
      sigemptyset(&empty)
      pthread_sigmask(SIG_SETMASK, &empty, nil)
      do { try self.run() } catch { failure = error }
      done.signal()
    }
    thread.start()
    done.wait()
    if let failure { throw failure }
  }
}
