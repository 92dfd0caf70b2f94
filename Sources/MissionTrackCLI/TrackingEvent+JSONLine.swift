import Foundation
import MissionProximity
import MissionTracking

extension TrackingEvent {
  /// Reads back an event written by `jsonLine` (as the store keeps them), or nil when the
  /// line is not an event object of a known type. Used to draw stored events in a report.
  init?(jsonLine: String) {
    guard
      let object = try? JSONSerialization.jsonObject(with: Data(jsonLine.utf8)),
      let json = object as? [String: Any],
      let type = json["type"] as? String,
      let timeText = json["time"] as? String, let time = UTCTime.parse(timeText)?.date,
      let missionID = json["mission_id"] as? String
    else { return nil }
    func number(_ key: String) -> Double? { (json[key] as? NSNumber)?.doubleValue }
    let fence = json["fence_id"] as? String ?? missionID
    let kind: Kind
    switch type {
    case "fix":
      guard let lat = number("lat"), let lon = number("lon"),
        let coordinate = try? Coordinate(latitude: lat, longitude: lon)
      else { return nil }
      let fix = Fix(
        time: time, coordinate: coordinate, source: "store", altitudeMeters: number("alt_m"),
        horizontalAccuracyMeters: number("eph_m"), speedMetersPerSecond: number("speed_mps"),
        courseDegrees: number("course_deg"))
      kind = .fix(
        fix, distanceToMissionMeters: number("distance_m") ?? .nan,
        travelledMeters: number("travelled_m") ?? .nan)
    case "enter":
      kind = .enter(
        fenceID: fence, distanceMeters: number("distance_m") ?? .nan,
        initial: json["initial"] as? Bool ?? false)
    case "dwell":
      kind = .dwell(fenceID: fence, dwellSeconds: number("dwell_s") ?? .nan)
    case "exit":
      kind = .exit(fenceID: fence, distanceMeters: number("distance_m") ?? .nan)
    case "crossed":
      kind = .crossed(fenceID: fence, closestDistanceMeters: number("closest_m") ?? .nan)
    case "state":
      guard let from = (json["from"] as? String).flatMap(MissionState.init(rawValue:)),
        let to = (json["to"] as? String).flatMap(MissionState.init(rawValue:))
      else { return nil }
      kind = .state(from: from, to: to)
    case "source":
      guard let status = (json["status"] as? String).flatMap(SourceStatus.Kind.init(rawValue:))
      else { return nil }
      kind = .source(status, detail: json["detail"] as? String ?? "")
    case "rejected":
      kind = .rejected(
        reason: json["reason"] as? String ?? "", count: (json["count"] as? NSNumber)?.intValue ?? 0)
    default:
      return nil
    }
    self.init(time: time, missionID: missionID, kind: kind)
  }
}
