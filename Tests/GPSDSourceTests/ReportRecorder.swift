import Foundation
import MissionTracking
import Synchronization

/// Consumes a source's stream on a task and records everything, so a test can wait for a
/// condition, act (kill gpsd, ...), and stop the stream by cancelling the task.
final class ReportRecorder: Sendable {
  private let state = Mutex<(reports: [SourceReport], ended: Bool, error: String?)>(
    ([], false, nil))

  var reports: [SourceReport] { state.withLock { $0.reports } }
  var ended: Bool { state.withLock { $0.ended } }
  var error: String? { state.withLock { $0.error } }

  var fixes: [Fix] {
    reports.compactMap {
      if case .fix(let fix) = $0 { fix } else { nil }
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
          state.withLock { $0.reports.append(report) }
        }
      } catch {
        state.withLock { $0.error = "\(error)" }
      }
      state.withLock { $0.ended = true }
    }
  }

  /// Polls until `condition` holds or `timeout` passes; returns whether it held.
  func wait(
    upTo timeout: Duration = .seconds(10), until condition: (ReportRecorder) -> Bool
  ) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while clock.now < deadline {
      if condition(self) { return true }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return condition(self)
  }
}

/// Polls a synchronous condition until it holds or `timeout` passes.
func eventually(
  upTo timeout: Duration = .seconds(2), _ condition: () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let deadline = clock.now.advanced(by: timeout)
  while clock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return condition()
}
