import Foundation
import Synchronization

/// Wakes a node when another one changed missions: a connection of its own, on a thread of
/// its own, `LISTEN`s to `mission_changes` (the log's trigger sends one `NOTIFY` per
/// writing statement) and yields on `wakeUps`.
///
/// It yields once right after every (re)connection too: notifications sent while it was
/// away are lost, so the consumer catches up by reading the change log after its last
/// token (`changes(after:)`) whenever it wakes. A broken connection is replaced with
/// back-off (50 ms doubling to 2 s), forever, until `stop()`.
package final class PostgresChangeWaiter: Sendable {
  /// One element per wake-up; consecutive ones are folded while the consumer is busy.
  package let wakeUps: AsyncStream<Void>
  private let state: State

  /// What the thread and the owner share.
  private final class State: Sendable {
    let stopped = Mutex(false)
    let connections = Mutex(0)
    let continuation: AsyncStream<Void>.Continuation

    init(continuation: AsyncStream<Void>.Continuation) { self.continuation = continuation }
  }

  /// Starts listening on `uri`.
  package init(uri: String) {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    wakeUps = stream
    let state = State(continuation: continuation)
    self.state = state
    let thread = Thread { Self.run(uri: uri, state) }
    thread.name = "postgres-change-waiter"
    thread.start()
  }

  deinit { stop() }

  /// How many connections the waiter has made (1 until the first reconnect).
  package var connectionCount: Int { state.connections.withLock { $0 } }

  /// Stops listening: the thread ends within a quarter second and `wakeUps` finishes.
  package func stop() {
    state.stopped.withLock { $0 = true }
  }

  private static func run(uri: String, _ state: State) {
    var delay = Duration.milliseconds(50)
    while !state.stopped.withLock({ $0 }) {
      do {
        let connection = try PostgresConnection(uri: uri)
        try connection.listen("mission_changes")
        state.connections.withLock { $0 += 1 }
        delay = .milliseconds(50)
        state.continuation.yield()
        while !state.stopped.withLock({ $0 }) {
          if !(try connection.notifications(waitingAtMost: .milliseconds(250))).isEmpty {
            state.continuation.yield()
          }
        }
      } catch {
        let (seconds, attoseconds) = delay.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) * 1e-18)
        delay = min(delay * 2, .seconds(2))
      }
    }
    state.continuation.finish()
  }
}
