import Foundation
import MissionTracking

extension MissionReport {
  /// The fence radius to draw, in metres: the mission's, or 0 when it is negative or not a
  /// number (a bad row must still give a picture).
  var fenceRadiusMeters: Double {
    let radius = mission.geofenceRadiusMeters
    return radius.isFinite ? max(radius, 0) : 0
  }

  /// Time of the first delivered fix, or of the first event when there is no track.
  var startTime: Date? { track.first?.time ?? events.first?.time }

  /// Time of the last delivered fix, or of the last event when there is no track.
  var endTime: Date? { track.last?.time ?? events.last?.time }

  /// Great-circle distance along the delivered track in metres: the tracker's travelled
  /// distance, which also sums delivered fixes only.
  /// - Complexity: O(n) in the number of fixes.
  var travelledMeters: Double {
    var total = 0.0
    for index in track.indices.dropFirst() {
      total += track[index - 1].coordinate.distance(to: track[index].coordinate)
    }
    return total
  }

  /// When the worker arrived: the transition to `arrived`, else the first `enter`.
  var arrivalTime: Date? {
    for event in events {
      if case .state(_, let to) = event.kind, to == .arrived { return event.time }
    }
    for event in events {
      if case .enter = event.kind { return event.time }
    }
    return nil
  }

  /// The smallest distance of a delivered fix from the mission point, in metres.
  var closestApproachMeters: Double? {
    track.lazy.map { $0.coordinate.distance(to: self.mission.coordinate) }.min()
  }

  /// The fence events (`enter`, `dwell`, `exit`, `crossed`) that get a marker on the map.
  var fenceEvents: [(event: TrackingEvent, marker: ReportMarker)] {
    // A plain loop: the compactMap-with-tuple form crashes Swift 6.3's optimizer (-c release).
    var result: [(event: TrackingEvent, marker: ReportMarker)] = []
    for event in events {
      if let marker = ReportRenderer.marker(for: event) { result.append((event, marker)) }
    }
    return result
  }
}
