import MissionFiles
import MissionTracking

extension MissionDatabase {
  /// One page of missions ordered by id: those after `afterID` (from the first when nil),
  /// optionally only those in `state`, at most `limit`.
  /// - Returns: The page, and the id to ask after for the next one (nil on the last page).
  /// - Complexity: O(limit) rows read through the primary key (or the state index).
  public func missions(after afterID: String?, limit: Int, inState state: MissionState? = nil)
    throws -> (missions: [Mission], nextAfter: String?)
  {
    try withConnection { connection in
      let condition = state == nil ? "id > ?" : "id > ? AND state = ?"
      let select = try connection.cached(
        "SELECT \(Self.missionColumns) FROM missions WHERE \(condition) ORDER BY id LIMIT ?")
      defer { select.reset() }
      try select.bind(afterID.map(MissionID.normalized) ?? "", at: 1)
      if let state { try select.bind(state.rawValue, at: 2) }
      try select.bind(Int64(limit) + 1, at: state == nil ? 2 : 3)
      var page: [Mission] = []
      while try select.step() { page.append(mission(from: select)) }
      guard page.count > limit else { return (page, nil) }
      page.removeLast()
      return (page, page.last?.id)
    }
  }

  /// Number of delivered fixes stored for mission `id`.
  /// - Complexity: O(n) in the track's length (primary-key range count).
  public func trackCount(ofMission id: String) throws -> Int {
    try withConnection { connection in
      try commitPendingLocked(connection)
      let select = try connection.cached("SELECT count(*) FROM track WHERE mission_id = ?")
      defer { select.reset() }
      try select.bind(MissionID.normalized(id), at: 1)
      return try select.step() ? Int(select.int64(at: 0)) : 0
    }
  }

  /// Removes mission `id` with everything recorded for it (transitions, track, events,
  /// fence states, rejection counts), in one transaction; the change feed logs the removal.
  /// - Returns: Whether there was such a mission.
  /// - Throws: `StoreError.sqlite`.
  @discardableResult
  public func removeMission(id: String) throws -> Bool {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try commitPendingLocked(connection)
      let removed = try connection.transaction { () -> Bool in
        for table in [
          "transitions", "track", "events", "fence_state", "ingest_rejections",
          "tracking_sessions",
        ] {
          let delete = try connection.cached("DELETE FROM \(table) WHERE mission_id = ?")
          try delete.bind(id, at: 1)
          try delete.run()
        }
        let delete = try connection.cached("DELETE FROM missions WHERE id = ?")
        try delete.bind(id, at: 1)
        try delete.run()
        return connection.changes > 0
      }
      knownMissions.remove(id)
      return removed
    }
  }
}

extension MissionDatabase {
  /// The sequence number of the newest stored event (0 when there is none); pending events
  /// commit first.
  public func lastEventSequence() throws -> Int64 {
    try withConnection { connection in
      try commitPendingLocked(connection)
      return try connection.integer("SELECT coalesce(max(seq), 0) FROM events") ?? 0
    }
  }
}
