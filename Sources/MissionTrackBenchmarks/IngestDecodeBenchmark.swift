import CommandLineSupport
import Foundation
import Ingest
import MissionTracking
import TextRules

/// `missiontrack-bench ingest-decode`: the phone decoders' share of an ingest request —
/// Overland batches and OsmAnd queries as `Tools/bench-ingest` sends them, decoded into
/// fixes — beside Foundation's `JSONSerialization` reading the same Overland bodies (a tree
/// of Foundation objects and nothing more) in the same run.
enum IngestDecodeBenchmark: Benchmark {
  static let name = "ingest-decode"
  static let summary = "phone payloads decoded into fixes, beside JSONSerialization"
  static let help = """
    NAME
      missiontrack-bench ingest-decode - measure the ingest decoders

    SYNOPSIS
      missiontrack-bench ingest-decode [--batches N] [--repeats R]

    DESCRIPTION
      Makes N Overland batches of 100 points (default 2,000) and 100 × N OsmAnd queries,
      each as Tools/bench-ingest sends them, and decodes them all R times (default 5):
      Overland with our decoder and, as the peer, with Foundation's JSONSerialization
      (which only builds the tree our decoder then reads), OsmAnd with our decoder. Prints
      the median microseconds per position of each, as one JSON object on standard output
      and a table on standard error.

    OPTIONS
      --batches N   Overland batches of 100 points (default 2000).
      --repeats R   Timed repeats; the median is reported (default 5).
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let batches = try arguments.int("--batches", in: 1...1_000_000) ?? 2000
    let repeats = try arguments.int("--repeats", in: 1...100) ?? 5
    try arguments.finish()
    let overland = (0..<batches).map { overlandRequest(device: $0 % 1000, first: $0 * 100) }
    let osmand = (0..<batches * 100).map { osmandRequest(device: $0 % 1000, second: $0) }
    let positions = Double(batches * 100)

    var ours: [Double] = []
    var foundation: [Double] = []
    var query: [Double] = []
    var decoded = 0
    for _ in 0..<repeats {
      ours.append(
        try await BenchMeasure.time {
          for request in overland {
            decoded += try IngestProtocol.overland.decode(request).positions.count
          }
        }.cpu)
      foundation.append(
        try await BenchMeasure.time {
          for request in overland {
            _ = try JSONSerialization.jsonObject(with: Data(request.body))
          }
        }.cpu)
      query.append(
        try await BenchMeasure.time {
          for request in osmand {
            decoded += try IngestProtocol.osmand.decode(request).positions.count
          }
        }.cpu)
    }
    guard decoded == Int(positions) * 2 * repeats else {
      throw CLIError.failure(
        "decoded \(decoded) positions, expected \(Int(positions) * 2 * repeats)")
    }
    let perPosition = [ours, foundation, query].map { BenchMeasure.median($0) / positions * 1e6 }
    var object = JSONObjectWriter()
    object.add("batches", batches)
    object.add("positions", Int(positions))
    object.add("overland_us_per_position", perPosition[0])
    object.add("jsonserialization_us_per_position", perPosition[1])
    object.add("osmand_us_per_position", perPosition[2])
    console.out(object.result)
    console.err(
      """
      decoder                          µs per position (CPU, median of \(repeats))
      Overland, ours (decoded fixes)   \(String(format: "%.2f", perPosition[0]))
      Overland, JSONSerialization tree \(String(format: "%.2f", perPosition[1]))
      OsmAnd query, ours               \(String(format: "%.2f", perPosition[2]))
      """)
    return 0
  }

  /// A batch of 100 points of one device, one second apart from point `first` on.
  private static func overlandRequest(device: Int, first: Int) -> IngestRequest {
    let points = (first..<first + 100).map { k in
      let lat = 50 + Double(device) * 0.01 + Double(k) * 12 / 111_195.08
      let time = Date(timeIntervalSince1970: 1_796_000_000 + Double(k))
      return #"{"type":"Feature","geometry":{"type":"Point","coordinates":[11.5,"#
        + String(format: "%.7f", lat) + #"]},"properties":{"timestamp":""#
        + time.ISO8601Format()
        + #"","horizontal_accuracy":5,"speed":12,"device_id":"dev\#(device)"}}"#
    }
    return IngestRequest(
      method: "POST", path: "/v1/ingest/overland", query: [],
      headers: [("Authorization", "Bearer s\(device)"), ("Content-Type", "application/json")],
      body: Array((#"{"locations":["# + points.joined(separator: ",") + "]}").utf8),
      receivedAt: Date())
  }

  /// One OsmAnd query of `device` at `second`.
  private static func osmandRequest(device: Int, second: Int) -> IngestRequest {
    let lat = 50 + Double(device) * 0.01 + Double(second) * 12 / 111_195.08
    return IngestRequest(
      method: "GET", path: "/v1/ingest/osmand",
      query: [
        ("id", "dev\(device)"), ("lat", String(format: "%.7f", lat)), ("lon", "10"),
        ("timestamp", "\(1_796_000_000 + second)"), ("secret", "s\(device)"),
      ], headers: [], body: [], receivedAt: Date())
  }
}
