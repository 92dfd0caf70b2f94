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
  }

  /// The endpoints' protocols, in the order `/metrics` lists them (GPSLogger speaks OsmAnd's).
  static let protocols: [IngestProtocol] = [.owntracks, .osmand, .overland, .native]

  private let lock = NSLock()
  private var positions: [IngestProtocol: [Outcome: Int]] = [:]
  private var refusals: [IngestProtocol: [Refusal: Int]] = [:]

  /// Counts the positions of one accepted request: the engine's `counts` and the points
  /// its decoder skipped (`rejected`).
  func note(_ protocolName: IngestProtocol, _ counts: IngestCounts, decoderRejected: Int) {
    lock.withLock {
      var row = positions[protocolName, default: [:]]
      row[.accepted, default: 0] += counts.accepted
      row[.duplicates, default: 0] += counts.duplicates
      row[.untracked, default: 0] += counts.untracked
      row[.outOfOrder, default: 0] += counts.outOfOrder
      row[.rejected, default: 0] += counts.rejected + decoderRejected
      positions[protocolName] = row
    }
  }

  /// Counts one refused request.
  func note(_ protocolName: IngestProtocol, refused reason: Refusal) {
    lock.withLock { refusals[protocolName, default: [:]][reason, default: 0] += 1 }
  }

  /// The two counters in the Prometheus text format.
  var prometheusText: String {
    lock.withLock {
      var text =
        "# HELP missiontrack_ingest_positions_total Positions received by /v1/ingest, by protocol and outcome.\n"
        + "# TYPE missiontrack_ingest_positions_total counter\n"
      for name in Self.protocols {
        for outcome in Outcome.allCases {
          let value = positions[name]?[outcome] ?? 0
          text +=
            "missiontrack_ingest_positions_total{protocol=\"\(name.rawValue)\",outcome=\"\(outcome.rawValue)\"} \(value)\n"
        }
      }
      text +=
        "# HELP missiontrack_ingest_refused_total Ingest requests refused, by protocol and reason.\n"
        + "# TYPE missiontrack_ingest_refused_total counter\n"
      for name in Self.protocols {
        for reason in Refusal.allCases {
          let value = refusals[name]?[reason] ?? 0
          text +=
            "missiontrack_ingest_refused_total{protocol=\"\(name.rawValue)\",reason=\"\(reason.rawValue)\"} \(value)\n"
        }
      }
      return text
    }
  }
}
