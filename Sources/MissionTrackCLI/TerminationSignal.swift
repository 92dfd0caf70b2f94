import CommandLineSupport
import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM as something to await, so `track` and `replay` can stop cleanly
/// (flush, stop the source, record the stop) instead of dying, and a safety net that flushes
/// standard output before the process dies of a signal nobody awaits.
///
/// Both signals are handled by one pair of dispatch signal sources installed once per
/// process (the default action is switched off while they exist). When a signal arrives:
/// - if a task is suspended in `wait()`, it gets the signal number and decides what to do;
/// - otherwise the console given to `flushOnTermination(_:)` is flushed (so every line
///   already produced is written out) and the signal's default action is restored and
///   re-raised: the process ends "killed by SIGTERM" as its parent expects.
enum TerminationSignal {
  /// Installs the handlers (once) and makes the safety net flush `console`.
  static func flushOnTermination(_ console: Console) {
    registry.withLock { state in
      state.console = console
      installLocked(&state)
    }
  }

  /// Suspends until SIGINT or SIGTERM arrives (or the task is cancelled) and returns its
  /// number (0 when cancelled). While a task waits here, a signal goes to it instead of
  /// ending the process.
  static func wait() async -> Int32 {
    let (stream, continuation) = AsyncStream<Int32>.makeStream()
    let token = registry.withLock { state -> Int in
      installLocked(&state)
      state.nextToken += 1
      state.waiters[state.nextToken] = continuation
      return state.nextToken
    }
    defer { _ = registry.withLock { $0.waiters.removeValue(forKey: token) } }
    return await withTaskCancellationHandler {
      for await number in stream { return number }
      return 0
    } onCancel: {
      continuation.finish()
    }
  }

  /// What the handlers share, behind `registry`.
  private struct State {
    var installed = false
    var sources: [any DispatchSourceSignal] = []
    var console: Console?
    var waiters: [Int: AsyncStream<Int32>.Continuation] = [:]
    var nextToken = 0
  }

  private static let registry = Mutex(State())

  private static func installLocked(_ state: inout State) {
    guard !state.installed else { return }
    state.installed = true
    state.sources = [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { deliver(number) }
      source.resume()
      return source
    }
  }

  private static func deliver(_ number: Int32) {
    let (waiters, console) = registry.withLock { state in
      (Array(state.waiters.values), state.console)
    }
    if !waiters.isEmpty {
      for waiter in waiters { waiter.yield(number) }
      return
    }
    // Nobody stops cleanly on this signal: keep what was produced, then die of it.
    console?.flush(waitingAtMost: .seconds(1))
    signal(number, SIG_DFL)
    // To the process, not this thread: dispatch's worker threads block signals, so a
    // `raise` here would stay pending forever.
    kill(getpid(), number)
  }
}
