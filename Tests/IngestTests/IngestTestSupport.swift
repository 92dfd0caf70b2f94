import Foundation
import MissionTracking

@testable import Ingest

/// A request with `query` given as the text after `?` (decoded as a server decodes it).
func request(
  query: String = "", headers: [(name: String, value: String)] = [], body: String = "",
  receivedAt: Date = Date(timeIntervalSince1970: 1_700_000_000)
) -> IngestRequest {
  IngestRequest(
    method: body.isEmpty ? "GET" : "POST", path: "/v1/ingest",
    query: FormURLEncoded.pairs(Array(query.utf8)),
    headers: headers, body: Array(body.utf8), receivedAt: receivedAt)
}

/// The JSON content type header of Traccar Client 9.
let jsonType = [(name: "Content-Type", value: "application/json")]

/// Whether `a` and `b` agree to a nanometre's worth of degrees or a micro-unit.
func close(_ a: Double?, _ b: Double?) -> Bool {
  guard let a, let b else { return a == nil && b == nil }
  return abs(a - b) < 1e-6
}

/// The only position of `batch`'s fix.
func onlyFix(_ batch: IngestBatch) -> Fix? {
  batch.positions.count == 1 ? batch.positions[0].fix : nil
}
