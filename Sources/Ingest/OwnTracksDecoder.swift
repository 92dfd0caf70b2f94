import Foundation
import TextRules

/// OwnTracks in HTTP mode: one JSON message per `POST` (the OwnTracks booklet, "HTTP" and
/// "JSON"; Traccar's `OwnTracksProtocolDecoder`).
///
/// A `_type:"location"` message is one position: `lat`, `lon`, `tst` (epoch seconds, also
/// sent as a string), `acc` (m), `alt` (m), `vel` (km/h), `cog` (°); `-1` means unknown;
/// `_id` (Android) is the position's key. Every other `_type`, and an empty body (the app
/// posts one when a friend is deleted), is acknowledged and ignored. The device is
/// `USER/DEVICE`, from the headers `X-Limit-U`/`X-Limit-D`, else the query `?u=&d=`, else
/// the message's `topic` `owntracks/USER/DEVICE`; the secret is the HTTP Basic password.
package enum OwnTracksDecoder {
  /// Decodes one OwnTracks request.
  /// - Throws: `IngestError` 400 for a body that is not a JSON object, a location without
  ///   identity, or a bad location value.
  package static func decode(_ request: IngestRequest) throws(IngestError) -> IngestBatch {
    let secret = request.presentedSecret
    guard request.body.contains(where: { !isJSONSpace($0) }) else {
      return IngestBatch(
        protocolName: .owntracks, identity: (try? identity(request, message: nil)) ?? .unnamed,
        secret: secret, ignored: 1)
    }
    let message = try JSONNode.object(body: request.body, .owntracks)
    let type: String?
    do {
      type = try message.string("_type")
    } catch {
      throw .malformed(.owntracks, error.reason)
    }
    guard let type else { throw .malformed(.owntracks, "the message has no _type") }
    guard type == "location" else {
      return IngestBatch(
        protocolName: .owntracks, identity: (try? identity(request, message: message)) ?? .unnamed,
        secret: secret, ignored: 1)
    }
    let sender = try identity(request, message: message)
    let position: IngestPosition
    do {
      position = try location(message)
    } catch {
      throw .malformed(.owntracks, "location: \(error.reason)")
    }
    return IngestBatch(
      protocolName: .owntracks, identity: sender, secret: secret, positions: [position])
  }

  private static func isJSONSpace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
  }

  /// `USER/DEVICE` from the headers, else the query, else the message's topic.
  private static func identity(_ request: IngestRequest, message: JSONNode?)
    throws(IngestError) -> IngestIdentity
  {
    let user: String
    let device: String
    // A pair counts when both are non-empty: an app without a user name configured may send
    // the headers empty, and then its topic names it.
    func pair(_ u: String?, _ d: String?) -> (String, String)? {
      guard let u, let d, !u.isEmpty, !d.isEmpty else { return nil }
      return (u, d)
    }
    if let byHeaders = pair(request.header("x-limit-u"), request.header("x-limit-d")) {
      (user, device) = byHeaders
    } else if let byQuery = pair(request.queryValue("u"), request.queryValue("d")) {
      (user, device) = byQuery
    } else if let topic = try? message?.string("topic") {
      // `pubTopicBase` is `owntracks/%u/%d` unless changed; another shape names nobody.
      let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
      guard parts.count == 3, parts[0] == "owntracks", !parts[1].isEmpty, !parts[2].isEmpty
      else {
        throw .malformed(.owntracks, "topic '\(topic)' is not owntracks/USER/DEVICE")
      }
      (user, device) = (String(parts[1]), String(parts[2]))
    } else {
      throw .malformed(
        .owntracks,
        "no device: send X-Limit-U and X-Limit-D, ?u=USER&d=DEVICE or a topic owntracks/USER/DEVICE"
      )
    }
    let u = try IngestIdentity.checkedID(user, field: "user", .owntracks)
    let d = try IngestIdentity.checkedID(device, field: "device", .owntracks)
    return .device(try IngestIdentity.checkedID(u + "/" + d, field: "device id", .owntracks))
  }

  /// The position of a `location` message.
  private static func location(_ message: JSONNode) throws(PointProblem) -> IngestPosition {
    // `-1` is the apps' "unknown" (DESIGN §8); other negatives are unknown by `PointFields`.
    func known(_ key: String) throws(PointProblem) -> Double? {
      guard let value = try message.number(key), value != -1 else { return nil }
      return value
    }
    var fields = PointFields()
    fields.latitude = try message.number("lat")
    fields.longitude = try message.number("lon")
    guard fields.latitude != nil, fields.longitude != nil else {
      throw PointProblem("lat and lon are required")
    }
    fields.time = try time(message)
    fields.accuracyMeters = try known("acc")
    fields.altitudeMeters = try known("alt")
    fields.speedMetersPerSecond = try known("vel").map { $0 * PointFields.metersPerSecondPerKmh }
    fields.courseDegrees = try known("cog")
    let key = try message.string("_id")
    return IngestPosition(fix: try fields.fix(source: .owntracks), key: key)
  }

  /// `tst`: epoch seconds, as a number or as a string of one.
  private static func time(_ message: JSONNode) throws(PointProblem) -> Date {
    guard let node = message["tst"] else { throw PointProblem("tst is required") }
    let seconds: Double?
    switch node.value {
    case .number(let text), .string(let text): seconds = Double(decimalText: text)
    default: throw PointProblem("tst is \(node.typeName), not epoch seconds")
    }
    guard let seconds, let date = IngestTime.epochSeconds(seconds) else {
      throw PointProblem("tst is not epoch seconds between 1970 and 9999")
    }
    return date
  }
}
