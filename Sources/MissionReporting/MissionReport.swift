import Foundation
import MissionTracking

/// What a mission report shows: the mission, the track that was delivered for it and the
/// events the tracker reported, ready for `ReportRenderer`.
public struct MissionReport: Sendable {
  /// The mission: its point, geofence radius, title, reward, state.
  public var mission: Mission
  /// The delivered fixes (after cleaning and the distance filter), in time order.
  public var track: [Fix]
  /// The mission's events (its own fence's transitions, lifecycle, source news); events of
  /// other missions, and fence events of other missions' fences passed on the way, are
  /// ignored (the map draws this mission's fence only).
  public var events: [TrackingEvent]
  /// The geofence exit margin in metres: the worker has left only beyond radius + margin.
  public var exitMarginMeters: Double

  /// Creates a report model.
  ///
  /// - Parameters:
  ///   - mission: The mission.
  ///   - track: Delivered fixes; sorted by time here (stable, so equal times keep order).
  ///   - events: Tracking events; only those whose `missionID` is the mission's and whose
  ///     fence (if any) is the mission's own are kept.
  ///   - exitMarginMeters: The exit margin; `nil` means the default of DESIGN.md §2,
  ///     max(20 m, 20 % of the radius).
  public init(
    mission: Mission, track: [Fix], events: [TrackingEvent] = [],
    exitMarginMeters: Double? = nil
  ) {
    self.mission = mission
    self.track = track.sorted { $0.time < $1.time }
    self.events = events.filter {
      $0.missionID == mission.id && ($0.fenceID ?? mission.id) == mission.id
    }
    .sorted { $0.time < $1.time }
    let margin =
      exitMarginMeters
      ?? MissionReport.defaultExitMargin(
        radiusMeters: mission.geofenceRadiusMeters.isFinite ? mission.geofenceRadiusMeters : 0)
    self.exitMarginMeters = margin.isFinite ? max(0, margin) : 0
  }

  /// Creates a report model whose track is the fixes of the `fix` events: the tracker emits
  /// one for every delivered fix, so the event log alone is enough.
  ///
  /// - Parameters:
  ///   - mission: The mission.
  ///   - events: Tracking events, `fix` events included.
  ///   - exitMarginMeters: The exit margin; `nil` means the default.
  public init(mission: Mission, events: [TrackingEvent], exitMarginMeters: Double? = nil) {
    let track = events.compactMap { event -> Fix? in
      guard event.missionID == mission.id, case .fix(let fix, _, _) = event.kind else {
        return nil
      }
      return fix
    }
    self.init(
      mission: mission, track: track, events: events, exitMarginMeters: exitMarginMeters)
  }

  /// The default exit margin for a fence of `radiusMeters`: max(20 m, 20 % of the radius).
  public static func defaultExitMargin(radiusMeters: Double) -> Double {
    max(20, 0.2 * radiusMeters)
  }
}
