import Foundation
import MissionProximity

/// The standing watches (DESIGN §7) and the missions in each one's result set, as a pure
/// state machine: it decides which watches a mission enters when it is added, moved,
/// changes state or is removed, and returns one `mission_nearby` event per entry.
///
/// Leaving a result set makes no event; entering it again makes a new one. A watch starts
/// with its current result set and no events. Watch centres live in a spatial grid, so a
/// mission change looks only at the watches whose circle could hold its old or new place.
package struct WatchBook: Sendable {
  private var byID: [String: Watch] = [:]
  /// Watch centres by place; queried with the largest radius, then each watch's own.
  private var centres: SpatialGrid<Watch>?
  private var largestRadiusMeters: Double = 0
  /// The missions in each watch's result set, by watch id.
  private var members: [String: Set<String>] = [:]

  /// No watches.
  package init() {}

  /// Every watch, by id.
  package var watches: [Watch] { byID.values.sorted { $0.id < $1.id } }

  /// The ids of the missions in watch `id`'s result set.
  package func members(of id: String) -> Set<String> { members[id] ?? [] }

  /// The distance of `mission` from the centre of `watch` when it is in its result set:
  /// within the radius (inclusive) and, when the watch names a state, in that state.
  package static func distance(of mission: Mission, in watch: Watch) -> Double? {
    if let state = watch.state, mission.state != state { return nil }
    let distance = watch.coordinate.distance(to: mission.coordinate)
    return distance <= watch.radiusMeters ? distance : nil
  }

  /// Adds or replaces `watch` with `members` as its current result set (no events).
  package mutating func add(_ watch: Watch, members current: Set<String>) {
    if centres == nil { centres = try? SpatialGrid<Watch>() }
    byID[watch.id] = watch
    centres?.insert(watch.id, at: watch.coordinate, payload: watch)
    members[watch.id] = current
    largestRadiusMeters = max(largestRadiusMeters, watch.radiusMeters)
  }

  /// Removes watch `id`; false when there was none.
  package mutating func remove(id: String) -> Bool {
    guard byID.removeValue(forKey: id) != nil else { return false }
    _ = centres?.remove(id)
    members[id] = nil
    largestRadiusMeters = byID.values.map(\.radiusMeters).max() ?? 0
    return true
  }

  /// Mission `old` became `new` (nil: absent) at `time`: updates the result sets and
  /// returns one `mission_nearby` event per watch the mission entered, by watch id.
  package mutating func update(from old: Mission?, to new: Mission?, at time: Date)
    -> [TrackingEvent]
  {
    guard !byID.isEmpty, let id = new?.id ?? old?.id else { return [] }
    var candidates = Set<String>()
    for place in [old?.coordinate, new?.coordinate].compactMap({ $0 }) {
      candidates.formUnion(watchIDs(near: place))
    }
    var events: [TrackingEvent] = []
    for watchID in candidates.sorted() {
      guard let watch = byID[watchID] else { continue }
      let distance = new.flatMap { Self.distance(of: $0, in: watch) }
      let wasIn = members[watchID]?.contains(id) ?? false
      if let distance {
        guard !wasIn else { continue }
        members[watchID, default: []].insert(id)
        events.append(
          TrackingEvent(
            time: time, missionID: id, workerID: watch.workerID,
            kind: .nearby(watchID: watchID, distanceMeters: distance)))
      } else if wasIn {
        members[watchID]?.remove(id)
      }
    }
    return events
  }

  /// The watches whose circle could hold `place`.
  private func watchIDs(near place: Coordinate) -> [String] {
    guard let centres else { return [] }
    let matches = (try? centres.missions(within: largestRadiusMeters, of: place)) ?? []
    return matches.compactMap { match in
      guard let watch = byID[match.id], match.distanceMeters <= watch.radiusMeters else {
        return nil
      }
      return match.id
    }
  }
}
