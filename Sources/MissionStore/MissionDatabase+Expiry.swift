import Foundation
import MissionTracking

extension MissionDatabase {
  /// Expires every mission whose deadline is before `now` and whose state allows `expire`
  /// (open, accepted: the lifecycle's rule), each with its own committed transition (time
  /// `now`), and returns their ids in order.
  ///
  /// Commands that start tracking or list open missions call this first, so a mission past
  /// its deadline can be neither started nor offered.
  /// - Throws: `StoreError` when the missions cannot be read or a transition cannot commit.
  @discardableResult
  public func expireDue(at now: Date = Date()) throws -> [String] {
    let expirable = MissionState.allCases.filter { state in
      MissionAction.expire.target(from: state).map { $0 != state } ?? false
    }
    let due: [String] = try withConnection { connection in
      let marks = Array(repeating: "?", count: expirable.count).joined(separator: ", ")
      let select = try connection.cached(
        """
        SELECT \(Self.missionColumns) FROM missions
        WHERE state IN (\(marks)) AND deadline_us IS NOT NULL AND deadline_us < ?
        ORDER BY id
        """)
      defer { select.reset() }
      for (index, state) in expirable.enumerated() {
        try select.bind(state.rawValue, at: Int32(index + 1))
      }
      try select.bind(microseconds(now), at: Int32(expirable.count + 1))
      var ids: [String] = []
      while try select.step() {
        let mission = mission(from: select)
        if MissionLifecycle(mission: mission).isDue(at: now) { ids.append(mission.id) }
      }
      return ids
    }
    for id in due { try apply(.expire, toMission: id, at: now) }
    return due
  }
}
