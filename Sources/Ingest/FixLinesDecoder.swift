import Foundation
import MissionTracking
import TextRules

/// Our own fix JSON lines, the shape `missiontrack decode` prints (DESIGN §2):
/// `{"time","lat","lon","alt_m","mode","eph_m","speed_mps","course_deg","source"}`, one
/// object per line, so `missiontrack decode … | curl --data-binary @- …/fixes?worker=W`
/// feeds worker W.
///
/// `time` (RFC 3339 with a zone), `lat` and `lon` are required; `mode` 1 (no fix) is no
/// position; a line whose `kind` is `waypoint` or `route` (a GPX point that is not a track
/// point) is ignored. A bad line is counted with its line number and skipped; blank lines
/// are skipped. The worker is `?worker=W`; the secret is `Authorization: Bearer` (the
/// service token or the worker's device secret).
package enum FixLinesDecoder {
  /// Decodes one fix-lines request.
  /// - Throws: `IngestError` 400 when `?worker=` is missing or not an id.
  package static func decode(_ request: IngestRequest) throws(IngestError) -> IngestBatch {
    guard let worker = request.queryValue("worker") else {
      throw .malformed(.native, "no worker: send ?worker=W")
    }
    var batch = IngestBatch(
      protocolName: .native,
      identity: .worker(try IngestIdentity.checkedID(worker, field: "worker", .native)),
      secret: request.presentedSecret)
    var index = 0
    var lineNumber = 0
    for var line in request.body.split(separator: 0x0A, omittingEmptySubsequences: false) {
      lineNumber += 1
      if line.last == 0x0D { line = line.dropLast() }
      guard line.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { continue }
      defer { index += 1 }
      do {
        if let position = try position(Array(line)) {
          batch.positions.append(position)
        } else {
          batch.ignored += 1
        }
      } catch {
        batch.rejected.append(IngestRejection(index: index, line: lineNumber, reason: error.reason))
      }
    }
    return batch
  }

  /// The position of one line, or nil for a waypoint or route point.
  private static func position(_ line: [UInt8]) throws(PointProblem) -> IngestPosition? {
    let object: JSONNode
    do {
      object = try JSONParser.parse(line)
    } catch {
      throw PointProblem("not JSON: \(error.reason)")
    }
    guard case .object = object.value else {
      throw PointProblem("\(object.typeName), not a JSON object")
    }
    if let kind = try object.string("kind"), kind == "waypoint" || kind == "route" { return nil }
    var fields = PointFields()
    fields.time = try object.time("time")
    fields.latitude = try object.number("lat")
    fields.longitude = try object.number("lon")
    fields.altitudeMeters = try object.number("alt_m")
    fields.accuracyMeters = try object.number("eph_m")
    fields.speedMetersPerSecond = try object.number("speed_mps")
    fields.courseDegrees = try object.number("course_deg")
    if let mode = try object.number("mode") {
      guard let known = FixMode(rawValue: Int(exactly: mode) ?? 0) else {
        throw PointProblem("mode \(mode) is not 1, 2 or 3")
      }
      fields.mode = known
    }
    return IngestPosition(fix: try fields.fix(source: .native))
  }
}
