import Foundation
import TextRules

/// Something the tracker reports: a delivered fix, a geofence transition, a lifecycle change,
/// news about the source. Written as one JSON object per line (`jsonLine`).
public struct TrackingEvent: Sendable, Hashable {
  /// What the event is about.
  public enum Kind: Sendable, Hashable {
    /// A fix that passed cleaning and the distance filter, with the great-circle distance to
    /// the mission point and the distance travelled since tracking started, in metres.
    case fix(Fix, distanceToMissionMeters: Double, travelledMeters: Double)
    /// The worker entered the fence of mission `fenceID`; `initial` when tracking started
    /// inside it.
    case enter(fenceID: String, distanceMeters: Double, initial: Bool)
    /// The worker has been inside the fence continuously for `dwellSeconds` (fix time).
    case dwell(fenceID: String, dwellSeconds: Double)
    /// The worker left the fence (beyond radius plus exit margin).
    case exit(fenceID: String, distanceMeters: Double)
    /// The segment between two fixes passed within the fence although neither fix was inside.
    case crossed(fenceID: String, closestDistanceMeters: Double)
    /// A lifecycle transition.
    case state(from: MissionState, to: MissionState)
    /// News about the fix source.
    case source(SourceStatus.Kind, detail: String)
    /// A summary of reports dropped by cleaning, by reason.
    case rejected(reason: String, count: Int)
    /// The mission entered the result set of watch `watchID` (imported, moved into it,
    /// reopened), `distanceMeters` from the watch's centre (DESIGN §7).
    case nearby(watchID: String, distanceMeters: Double)
  }

  /// Fix time (or, for lifecycle and source events, the wall-clock time), UTC.
  public var time: Date
  /// The mission the event belongs to.
  public var missionID: String
  /// The worker the event is about: the tracked worker for fix, fence and source events,
  /// the mission's worker for `state` events, the watch's worker (if any) for `nearby`.
  public var workerID: String?
  /// What happened.
  public var kind: Kind

  /// Creates an event.
  public init(time: Date, missionID: String, workerID: String? = nil, kind: Kind) {
    self.time = time
    self.missionID = missionID
    self.workerID = workerID
    self.kind = kind
  }

  /// Every `type` an event can have, in the order of `Kind`: the one list that `/metrics`
  /// counts by and the live map page listens for.
  package static let types = [
    "fix", "enter", "dwell", "exit", "crossed", "state", "source", "rejected", "mission_nearby",
  ]

  /// The `type` member of the JSON line: `fix`, `enter`, `dwell`, `exit`, `crossed`,
  /// `state`, `source`, `rejected` or `mission_nearby`.
  public var type: String {
    switch kind {
    case .fix: "fix"
    case .enter: "enter"
    case .dwell: "dwell"
    case .exit: "exit"
    case .crossed: "crossed"
    case .state: "state"
    case .source: "source"
    case .rejected: "rejected"
    case .nearby: "mission_nearby"
    }
  }

  /// The event as one JSON object (no trailing newline): `type`, `time` (RFC 3339 UTC),
  /// `mission_id`, `worker_id` (when known), then the members of its kind, keys in
  /// snake_case.
  public var jsonLine: String {
    var json = JSONObjectWriter()
    json.add("type", type)
    json.add("time", UTCTime.format(time))
    json.add("mission_id", missionID)
    json.addIfPresent("worker_id", workerID)
    switch kind {
    case .fix(let fix, let distance, let travelled):
      json.add("lat", fix.coordinate.latitude)
      json.add("lon", fix.coordinate.longitude)
      json.addIfPresent("alt_m", fix.altitudeMeters)
      json.addIfPresent("eph_m", fix.horizontalAccuracyMeters)
      json.addIfPresent("speed_mps", fix.speedMetersPerSecond)
      json.addIfPresent("course_deg", fix.courseDegrees)
      json.add("distance_m", distance)
      json.add("travelled_m", travelled)
    case .enter(let fence, let distance, let initial):
      json.add("fence_id", fence)
      json.add("distance_m", distance)
      json.add("initial", initial)
    case .dwell(let fence, let seconds):
      json.add("fence_id", fence)
      json.add("dwell_s", seconds)
    case .exit(let fence, let distance):
      json.add("fence_id", fence)
      json.add("distance_m", distance)
    case .crossed(let fence, let closest):
      json.add("fence_id", fence)
      json.add("closest_m", closest)
    case .state(let from, let to):
      json.add("from", from.rawValue)
      json.add("to", to.rawValue)
    case .source(let status, let detail):
      json.add("status", status.rawValue)
      if !detail.isEmpty { json.add("detail", detail) }
    case .rejected(let reason, let count):
      json.add("reason", reason)
      json.add("count", count)
    case .nearby(let watch, let distance):
      json.add("watch_id", watch)
      json.add("distance_m", distance)
    }
    return json.result
  }
}
