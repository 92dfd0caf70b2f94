import Foundation
import MissionTracking
import Synchronization

/// Consumes a source's stream on a task and records everything with its arrival time, so a
/// test can wait for a condition, act (write, kill socat, ...), and stop the stream by
/// cancelling the task.
final class SourceRecorder: Sendable {
  private struct State {
    var reports: [SourceReport] = []
    var arrivals: [ContinuousClock.Instant] = []
    var ended = false
    var error: (any Error)?
  }

  private let state = Mutex(State())

  var reports: [SourceReport] { state.withLock { $0.reports } }
  var ended: Bool { state.withLock { $0.ended } }
  var error: (any Error)? { state.withLock { $0.error } }

  var fixes: [Fix] {
    reports.compactMap {
      if case .fix(let fix) = $0 { fix } else { nil }
    }
  }

  /// When each fix arrived, in order.
  var fixArrivals: [ContinuousClock.Instant] {
    state.withLock { state in
      zip(state.reports, state.arrivals).compactMap {
        if case .fix = $0.0 { $0.1 } else { nil }
      }
    }
  }

  var statuses: [SourceStatus] {
    reports.compactMap {
      if case .status(let status) = $0 { status } else { nil }
    }
  }

  var statusKinds: [SourceStatus.Kind] { statuses.map(\.kind) }

  /// Starts consuming `stream`; cancel the returned task to stop the source.
  func consume(_ stream: AsyncThrowingStream<SourceReport, any Error>) -> Task<Void, Never> {
    Task {
      do {
        for try await report in stream {
          let now = ContinuousClock.now
          state.withLock {
            $0.reports.append(report)
            $0.arrivals.append(now)
          }
        }
      } catch {
        state.withLock { $0.error = error }
      }
      state.withLock { $0.ended = true }
    }
  }

  /// Polls until `condition` holds or `timeout` passes; returns whether it held. The
  /// default only guards against a hang (it costs nothing when the condition comes): a
  /// suite on two loaded cores can take many seconds for what takes one alone.
  func wait(
    upTo timeout: Duration = .seconds(60), until condition: (SourceRecorder) -> Bool
  ) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
      if condition(self) { return true }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return condition(self)
  }
}

/// Polls a synchronous condition until it holds or `timeout` passes.
func eventually(upTo timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  while clock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))
  }
  return condition()
}
