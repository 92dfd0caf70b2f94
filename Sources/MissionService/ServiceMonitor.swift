import Foundation
import MissionTracking

/// What the service has seen, for `/v1/status`, `/healthz` and `/metrics`: requests by
/// status, events by type, and the state and last fix of the source this process has (the
/// source of worker `sourceWorker`). Thread-safe.
final class ServiceMonitor: @unchecked Sendable {
  /// The source as the engine's events last described it.
  struct SourceView: Sendable {
    /// `idle` (no mission tracked), `connected`, or the kind of the last `source` event.
    var status = "idle"
    var detail = ""
    /// Fix time of the last delivered fix.
    var lastFixTime: Date?
    /// Wall time at which the last fix event arrived.
    var lastFixReceived: Date?
    /// Wall time since which the source has been down while tracking, if it is.
    var downSince: Date?
  }

  let started = Date()
  /// The worker whose events describe the source: another worker's mission leaving the
  /// tracking states says nothing about it.
  let sourceWorker: String
  private let lock = NSLock()
  private var requests: [Int: Int] = [:]
  private var events: [String: Int] = [:]
  private var source = SourceView()

  /// A monitor of the source that feeds `sourceWorker`.
  init(sourceWorker: String = Worker.localID) { self.sourceWorker = sourceWorker }

  /// Counts one answered request.
  func noteRequest(status: Int) { lock.withLock { requests[status, default: 0] += 1 } }

  /// Takes in an event the engine published (received at wall time `now`).
  func note(_ event: TrackingEvent, now: Date = Date()) {
    lock.withLock {
      events[event.type, default: 0] += 1
      guard (event.workerID ?? Worker.localID) == sourceWorker else { return }
      switch event.kind {
      case .fix(let fix, _, _):
        source.lastFixTime = fix.time
        source.lastFixReceived = now
        source.status = "connected"
        source.downSince = nil
      case .source(let kind, let detail):
        source.status = kind.rawValue
        source.detail = detail
        switch kind {
        case .connected, .gap, .ended: source.downSince = nil
        case .disconnected, .reconnecting, .silent, .noFix:
          if source.downSince == nil { source.downSince = now }
        }
      case .state(_, let to) where !to.isTracking:
        source.status = "idle"
        source.detail = ""
        source.downSince = nil
      case .state(_, let to) where to == .active:
        source.status = "connecting"
        source.downSince = nil
      default: break
      }
    }
  }

  /// The source's view now.
  var sourceView: SourceView { lock.withLock { source } }

  /// Counts so far: requests by status, events by type.
  var counts: (requests: [Int: Int], events: [String: Int]) {
    lock.withLock { (requests, events) }
  }
}
