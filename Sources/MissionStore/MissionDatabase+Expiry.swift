import Foundation
import MissionTracking

extension MissionDatabase {
  /// Expires every mission whose deadline is before `now` and whose state allows `expire`
  /// (open, accepted: the lifecycle's rule), each with its own committed transition (time
  /// `now`), and returns their ids in order.
  ///
  /// An explicit step of the commands that change missions or track (and of `serve`'s
  /// housekeeping), so a mission past its deadline can be neither accepted nor started.
  /// Commands that only read do not call it: they show such missions as expired
  /// (`dueMissionIDs(at:)`) and leave the file as it is.
  /// - Throws: `StoreError` when the missions cannot be read or a transition cannot commit.
  @discardableResult
  package func expireDue(at now: Date = Date()) throws -> [String] {
    let due = try dueMissionIDs(at: now).sorted()
    for id in due { try apply(.expire, toMission: id, at: now) }
    return due
  }

  /// The missions `expireDue(at:)` would expire at `now`: past their deadline in a state
  /// that allows `expire` (the lifecycle decides). Reads only.
  /// - Complexity: O(d log n) for d missions with a deadline before `now` in those states
  ///   (the `missions_by_deadline` index).
  package func dueMissionIDs(at now: Date = Date()) throws -> Set<String> {
    let expirable = MissionState.allCases.filter { state in
      MissionAction.expire.target(from: state).map { $0 != state } ?? false
    }
    return try withConnection { connection in
      let names = expirable.indices.map { "state\($0)" }
      let select = try connection.cached(
        """
        SELECT \(Self.missionColumns) FROM missions
        WHERE state IN (\(names.map { ":" + $0 }.joined(separator: ", ")))
          AND deadline_us IS NOT NULL AND deadline_us < :now
        """)
      defer { select.reset() }
      for (name, state) in zip(names, expirable) {
        try select.bind(state.rawValue, to: try select.parameter(name))
      }
      try select.bind(microseconds(now), to: try select.parameter("now"))
      let columns = try MissionColumns(select)
      var ids: Set<String> = []
      while try select.step() {
        let mission = mission(from: select, columns)
        if MissionLifecycle(mission: mission).isDue(at: now) { ids.insert(mission.id) }
      }
      return ids
    }
  }
}
