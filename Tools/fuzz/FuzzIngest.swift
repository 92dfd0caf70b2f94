// libFuzzer entry point for the ingest decoders (OwnTracks, OsmAnd / Traccar Client, Overland,
// fix lines). Built by Tools/fuzz/run-ingest, which compiles it together with the sources of
// Ingest (pure: no I/O); not part of the SwiftPM package.
//
// Input layout: byte 0 picks the protocol (bits 0–1), the JSON content type (bit 2) and the
// headers sent (bit 3: X-Limit-U/D and an Authorization header); the rest is
// `QUERY \0 AUTHORIZATION \0 BODY` (missing parts are empty).
//
// Oracle beyond "no crash, no hang, bounded memory": every decoded position is a valid fix
// (finite, in range, not (0, 0), a fix mode, a time in [1970, 10000), its protocol as source,
// accuracy and speed >= 0, course in [0, 360)); every named sender is a valid id; rejections
// are in order with one-line reasons; every refusal is one line with a status the clients
// expect (400, 401, 404); the success reply of the protocol is JSON where it has a body.
import Foundation
import MissionTracking
import TextRules

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIngest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  guard size > 0 else { return 0 }
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  let flags = bytes[0]
  let parts = bytes.dropFirst().split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false)
  let query = parts.count > 0 ? Array(parts[0]) : []
  let authorization = parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : ""
  let body = parts.count > 2 ? Array(parts[2]) : []
  let protocolName = IngestProtocol.allCases[Int(flags & 3)]
  var headers: [(name: String, value: String)] = []
  if flags & 4 != 0 { headers.append(("Content-Type", "application/json; charset=utf-8")) }
  if flags & 8 != 0 {
    headers.append(("Authorization", authorization))
    headers.append(("X-Limit-U", authorization))
    headers.append(("X-Limit-D", "d"))
  }
  let request = IngestRequest(
    query: FormURLEncoded.pairs(query), headers: headers, body: body,
    receivedAt: Date(timeIntervalSince1970: 1_700_000_000))
  do {
    let batch = try protocolName.decode(request)
    check(batch, protocolName)
  } catch {
    precondition(!error.message.contains("\n") && !error.message.contains("\r"), "two lines")
    precondition([400, 401, 404].contains(error.status), "status \(error.status)")
  }
  for tracked in [false, true, nil] {
    let reply = IngestReply(acknowledging: protocolName, tracked: tracked)
    if !reply.body.isEmpty {
      precondition((try? JSONParser.parse(reply.body)) != nil, "reply is not JSON")
    }
  }
  return 0
}

private func check(_ batch: IngestBatch, _ protocolName: IngestProtocol) {
  precondition(batch.protocolName == protocolName)
  switch batch.identity {
  case .device(let id), .worker(let id):
    precondition(!id.allSatisfy(\.isWhitespace), "blank id")
    precondition(id.utf8.count <= 200, "id too long")
    precondition(
      !id.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F) ~= $0.value },
      "control character in id")
  case .unnamed: break
  }
  for position in batch.positions {
    let fix = position.fix
    let c = fix.coordinate
    precondition(c.latitude.isFinite && c.latitude.magnitude <= 90, "latitude \(c.latitude)")
    precondition(c.longitude.isFinite && c.longitude.magnitude <= 180, "longitude \(c.longitude)")
    precondition(!(c.latitude == 0 && c.longitude == 0), "(0, 0)")
    precondition(fix.mode != .noFix, "no fix")
    precondition(fix.source == protocolName.rawValue, "source \(fix.source)")
    let seconds = fix.time.timeIntervalSince1970
    precondition(seconds >= 0 && seconds < 253_402_300_800, "time \(seconds)")
    _ = UTCTime.format(fix.time)
    precondition(fix.horizontalAccuracyMeters.map { $0.isFinite && $0 >= 0 } ?? true)
    precondition(fix.speedMetersPerSecond.map { $0.isFinite && $0 >= 0 } ?? true)
    precondition(fix.courseDegrees.map { $0 >= 0 && $0 < 360 } ?? true, "course")
    precondition(fix.altitudeMeters.map(\.isFinite) ?? true)
  }
  var last = -1
  for rejection in batch.rejected {
    precondition(rejection.index > last, "rejections out of order")
    last = rejection.index
    precondition(rejection.line >= 1, "no line")
    precondition(!rejection.reason.contains("\n") && !rejection.reason.contains("\r"), "two lines")
  }
  let unknown = batch.unknownDevice()
  precondition([400, 401, 404].contains(unknown.status))
  precondition(batch.wrongSecret().status == 401)
}
