import Foundation
import MissionTracking
import TextRules

/// Overland (iOS) batches (its README, "API"): `{"locations":[…]}`, each a GeoJSON `Point`
/// feature with `coordinates` `[lon, lat]` and `properties.timestamp` (ISO 8601, an offset
/// with or without a colon), `horizontal_accuracy` (m), `speed` (m/s), `course` (°),
/// `altitude` (m, unknown when `vertical_accuracy` is negative, as CoreLocation says) and
/// `device_id`. A negative accuracy, speed or course is unknown.
///
/// One bad point is counted with its index and reason and skipped; the rest is kept. A
/// feature with `properties.action` logs an app event (pause, visit, …) at the last known
/// place and the current time: it is no fix, and is ignored. The secret is
/// `Authorization: Bearer`; the non-empty `device_id`s must all be one device's.
package enum OverlandDecoder {
  /// Decodes one Overland batch.
  /// - Throws: `IngestError` 400 when the body is not `{"locations":[…]}` or names two
  ///   devices.
  package static func decode(_ request: IngestRequest) throws(IngestError) -> IngestBatch {
    let root = try JSONNode.object(body: request.body, .overland)
    guard let list = root["locations"], case .array(let features) = list.value else {
      throw .malformed(.overland, "the body is not an object with a locations array")
    }
    var batch = IngestBatch(
      protocolName: .overland, identity: .unnamed, secret: request.presentedSecret,
      unknownDeviceStatus: 401)
    batch.positions.reserveCapacity(features.count)
    var deviceID: String?
    for (index, feature) in features.enumerated() {
      do {
        guard let properties = try feature.object("properties") else {
          throw PointProblem("no properties")
        }
        if let id = try properties.string("device_id"), !id.isEmpty, id != deviceID {
          guard deviceID == nil else {
            throw IngestError.malformed(
              .overland, "point \(index) is from device '\(id)', the batch from '\(deviceID ?? "")'"
            )
          }
          deviceID = try IngestIdentity.checkedID(id, field: "device_id", .overland)
        }
        if properties["action"] != nil {
          batch.ignored += 1
          continue
        }
        batch.positions.append(IngestPosition(fix: try fix(feature, properties)))
      } catch let problem as PointProblem {
        batch.rejected.append(
          IngestRejection(index: index, line: feature.line, reason: problem.reason))
      } catch let error as IngestError {
        throw error
      } catch {
        throw IngestError.malformed(.overland, "point \(index): \(error)")
      }
    }
    if let deviceID { batch.identity = .device(deviceID) }
    return batch
  }

  /// The fix of one `Point` feature.
  private static func fix(_ feature: JSONNode, _ properties: JSONNode) throws(PointProblem) -> Fix {
    guard let geometry = try feature.object("geometry") else { throw PointProblem("no geometry") }
    guard try geometry.string("type") == "Point" else {
      throw PointProblem("geometry is not a Point")
    }
    guard let node = geometry["coordinates"], case .array(let coordinates) = node.value,
      (2...3).contains(coordinates.count)
    else { throw PointProblem("coordinates are not [lon, lat]") }
    var numbers: [Double] = []
    for coordinate in coordinates {
      guard case .number(let text) = coordinate.value, let value = Double(decimalText: text) else {
        throw PointProblem("coordinates hold \(coordinate.typeName), not a finite number")
      }
      numbers.append(value)
    }
    var fields = PointFields()
    fields.longitude = numbers[0]
    fields.latitude = numbers[1]
    fields.time = try properties.time("timestamp")
    fields.accuracyMeters = try properties.number("horizontal_accuracy")
    fields.speedMetersPerSecond = try properties.number("speed")
    fields.courseDegrees = try properties.number("course")
    // CoreLocation: a negative vertical accuracy means the altitude is invalid.
    if try properties.number("vertical_accuracy") ?? 0 >= 0 {
      fields.altitudeMeters = try properties.number("altitude") ?? numbers.dropFirst(2).first
    }
    return try fields.fix(source: .overland)
  }
}
