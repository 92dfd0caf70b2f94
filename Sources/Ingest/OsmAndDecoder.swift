import Foundation
import MissionTracking
import TextRules

/// The OsmAnd protocol as Traccar reads it (`OsmAndProtocolDecoder`): OsmAnd's and
/// GPSLogger's URL, Traccar Client's query or form, and Traccar Client 9's JSON body.
///
/// **Query or form** (the query's items, then a form body's): `id` or `deviceid`; `lat` and
/// `lon`, or `location=lat,lon`; `timestamp` — a number below 2147483647 is seconds, from
/// there milliseconds; text with a `T` is ISO 8601 with a zone; `yyyy-MM-dd HH:mm:ss` is
/// UTC — and, when absent, the time the request was received; `speed` in knots;
/// `bearing`|`heading` (°); `altitude` (m); `accuracy`|`hacc` (m). A name given twice: the
/// last wins, as in Traccar. Other items (`hdop`, `batt`, `cell`, `wifi`, …) are not part of
/// a fix and are left. A report without coordinates (cell or Wi-Fi only) is acknowledged and
/// ignored. Unknown device: 400.
///
/// **JSON** (`Content-Type: application/json`): `device_id`;
/// `location.{timestamp, uuid, coords.{latitude, longitude, accuracy, speed (m/s),
/// heading, altitude}}`; a negative speed, heading or accuracy is unknown; `uuid` is the
/// position's key. Unknown device: 404.
package enum OsmAndDecoder {
  /// Decodes one OsmAnd request (JSON when the content type says so, else query and form).
  /// - Throws: `IngestError` 400 for a missing device id or a bad value.
  package static func decode(_ request: IngestRequest) throws(IngestError) -> IngestBatch {
    if request.contentType == "application/json" { return try decodeJSON(request) }
    return try decodeForm(request)
  }

  private static func decodeForm(_ request: IngestRequest) throws(IngestError) -> IngestBatch {
    var items = request.query
    // Traccar reads the body only when the query is empty; reading both also keeps a URL's
    // own items (`?secret=…`) when the client posts its report as a form.
    if !request.body.isEmpty { items += FormURLEncoded.pairs(request.body) }
    var deviceID: String?
    var fields = PointFields()
    var timestamp: String?
    var latitude: String?
    var longitude: String?
    func number(_ name: String, _ text: String) throws(IngestError) -> Double {
      guard let value = Double(decimalText: text) else {
        throw .malformed(.osmand, "\(name) '\(text)' is not a decimal number")
      }
      return value
    }
    for (name, value) in items {
      switch name {
      case "id", "deviceid": deviceID = value
      case "timestamp": timestamp = value
      case "lat": latitude = value
      case "lon": longitude = value
      case "location":
        let parts = value.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
          throw .malformed(.osmand, "location '\(value)' is not lat,lon")
        }
        (latitude, longitude) = (String(parts[0]), String(parts[1]))
      case "speed":
        fields.speedMetersPerSecond = try number(name, value) * PointFields.metersPerSecondPerKnot
      case "bearing", "heading": fields.courseDegrees = try number(name, value)
      case "altitude": fields.altitudeMeters = try number(name, value)
      case "accuracy", "hacc": fields.accuracyMeters = try number(name, value)
      default: break
      }
    }
    guard let deviceID else { throw .malformed(.osmand, "no device: send id or deviceid") }
    let identity = IngestIdentity.device(
      try IngestIdentity.checkedID(deviceID, field: "id", .osmand))
    let secret = request.presentedSecret
    guard latitude != nil || longitude != nil else {
      return IngestBatch(protocolName: .osmand, identity: identity, secret: secret, ignored: 1)
    }
    guard let latitude, let longitude else {
      throw .malformed(.osmand, "lat and lon must come together")
    }
    fields.latitude = try number("lat", latitude)
    fields.longitude = try number("lon", longitude)
    if let timestamp {
      guard let time = IngestTime.osmAnd(timestamp) else {
        throw .malformed(
          .osmand,
          "timestamp '\(timestamp)' is not epoch seconds or milliseconds, ISO 8601 with a zone "
            + "or yyyy-MM-dd HH:mm:ss")
      }
      fields.time = time
    } else {
      fields.time = request.receivedAt
    }
    let fix: Fix
    do {
      fix = try fields.fix(source: .osmand)
    } catch {
      throw .malformed(.osmand, error.reason)
    }
    return IngestBatch(
      protocolName: .osmand, identity: identity, secret: secret,
      positions: [IngestPosition(fix: fix)])
  }

  private static func decodeJSON(_ request: IngestRequest) throws(IngestError) -> IngestBatch {
    let root = try JSONNode.object(body: request.body, .osmand)
    let deviceID: String?
    let location: JSONNode?
    do {
      deviceID = try root.string("device_id")
      location = try root.object("location")
    } catch {
      throw .malformed(.osmand, error.reason)
    }
    guard let deviceID else { throw .malformed(.osmand, "no device_id") }
    let identity = IngestIdentity.device(
      try IngestIdentity.checkedID(deviceID, field: "device_id", .osmand))
    guard let location else { throw .malformed(.osmand, "no location") }
    var batch = IngestBatch(
      protocolName: .osmand, identity: identity, secret: request.presentedSecret,
      unknownDeviceStatus: 404)
    do {
      if let position = try position(location) {
        batch.positions = [position]
      } else {
        batch.ignored = 1
      }
    } catch {
      throw .malformed(.osmand, "location: \(error.reason)")
    }
    return batch
  }

  /// The position of the JSON form's `location`, or nil when it has no `coords` (Traccar
  /// then uses the device's last position; we record nothing).
  private static func position(_ location: JSONNode) throws(PointProblem) -> IngestPosition? {
    guard let coords = try location.object("coords") else { return nil }
    var fields = PointFields()
    fields.time = try location.time("timestamp")
    fields.latitude = try coords.number("latitude")
    fields.longitude = try coords.number("longitude")
    fields.accuracyMeters = try coords.number("accuracy")
    fields.speedMetersPerSecond = try coords.number("speed")
    fields.courseDegrees = try coords.number("heading")
    fields.altitudeMeters = try coords.number("altitude")
    return IngestPosition(fix: try fields.fix(source: .osmand), key: try location.string("uuid"))
  }
}
