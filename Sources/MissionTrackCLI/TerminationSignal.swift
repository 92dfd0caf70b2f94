import Dispatch
import Foundation

/// SIGINT and SIGTERM as something to await, so `track` can stop cleanly (flush, stop the
/// source, record the stop) instead of dying.
enum TerminationSignal {
  /// Suspends until SIGINT or SIGTERM arrives (or the task is cancelled) and returns its
  /// number (0 when cancelled). While waiting, the default action of both is off.
  static func wait() async -> Int32 {
    let (stream, continuation) = AsyncStream<Int32>.makeStream()
    let sources = [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { continuation.yield(number) }
      source.resume()
      return source
    }
    defer {
      for source in sources { source.cancel() }
      signal(SIGINT, SIG_DFL)
      signal(SIGTERM, SIG_DFL)
    }
    return await withTaskCancellationHandler {
      for await number in stream { return number }
      return 0
    } onCancel: {
      continuation.finish()
    }
  }
}
