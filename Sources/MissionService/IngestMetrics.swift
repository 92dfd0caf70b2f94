import Foundation
import Ingest
import MissionTracking

/// The counts of `/v1/ingest/…` for `/metrics`: positions by protocol and outcome, and
/// requests refused by protocol and reason. Thread-safe.
final class IngestMetrics: @unchecked Sendable {
  /// What became of a position.
  enum Outcome: String, CaseIterable {
    case accepted, duplicates, untracked
    case outOfOrder = "out_of_order"
    case rejected
  }

  /// Why a request was refused.
  enum Refusal: String, CaseIterable {
    case unknownDevice = "unknown_device"
    case wrongSecret = "wrong_secret"
    case malformed
    /// Another process tracks the worker (its tracking lease): refused with 503.
    case trackedElsewhere = "tracked_elsewhere"
  }

  /// The endpoints' protocols, in the order `/metrics` lists them (GPSLogger speaks OsmAnd's).
  static let protocols: [IngestProtocol] = [.owntracks, .osmand, .overland, .native]

  private let lock = NSLock()
  /// Guarded by `lock`: counts by protocol and outcome or reason (their `rawValue`s).
  private var positions: [IngestProtocol: [String: Int]] = [:]
  private var refusals: [IngestProtocol: [String: Int]] = [:]

  /// Counts the positions of one accepted request: the engine's `counts` and the points
  /// its decoder skipped (`rejected`).
  func note(_ protocolName: IngestProtocol, _ counts: IngestCounts, decoderRejected: Int) {
    lock.withLock {
      var row = positions[protocolName, default: [:]]
      row[Outcome.accepted.rawValue, default: 0] += counts.accepted
      row[Outcome.duplicates.rawValue, default: 0] += counts.duplicates
      row[Outcome.untracked.rawValue, default: 0] += counts.untracked
      row[Outcome.outOfOrder.rawValue, default: 0] += counts.outOfOrder
      row[Outcome.rejected.rawValue, default: 0] += counts.rejected + decoderRejected
      positions[protocolName] = row
    }
  }

  /// Counts one refused request.
  func note(_ protocolName: IngestProtocol, refused reason: Refusal) {
    lock.withLock { refusals[protocolName, default: [:]][reason.rawValue, default: 0] += 1 }
  }

  /// The two counters in the Prometheus text format.
  var prometheusText: String {
    lock.withLock {
      Self.counter(
        "ingest_positions_total", "Positions received by /v1/ingest, by protocol and outcome.",
        label: "outcome", Outcome.allCases.map(\.rawValue)
      ) { positions[$0]?[$1] ?? 0 }
        + Self.counter(
          "ingest_refused_total", "Ingest requests refused, by protocol and reason.",
          label: "reason", Refusal.allCases.map(\.rawValue)
        ) { refusals[$0]?[$1] ?? 0 }
    }
  }

  /// Counter `missiontrack_NAME` with a sample for each protocol and each of `values` of
  /// `label`.
  private static func counter(
    _ name: String, _ help: String, label: String, _ values: [String],
    value: (IngestProtocol, String) -> Int
  ) -> String {
    var text = "# HELP missiontrack_\(name) \(help)\n# TYPE missiontrack_\(name) counter\n"
    for protocolName in protocols {
      for labelValue in values {
        text +=
          "missiontrack_\(name){protocol=\"\(protocolName.rawValue)\",\(label)=\"\(labelValue)\"} "
          + "\(value(protocolName, labelValue))\n"
      }
    }
    return text
  }
}
