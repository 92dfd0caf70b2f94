import MissionFiles
import MissionTracking

extension MissionDatabase {
  /// One page of missions ordered by id: those after `afterID` (from the first when nil),
  /// optionally only those in `state`, at most `limit`.
  /// - Returns: The page, and the id to ask after for the next one (nil on the last page).
  /// - Complexity: O(limit) rows read through the primary key (or the state index).
  package func missions(after afterID: String?, limit: Int, inState state: MissionState? = nil)
    throws -> (missions: [Mission], nextAfter: String?)
  {
    try withConnection { connection in
      let condition = state == nil ? "id > :after" : "id > :after AND state = :state"
      let select = try connection.cached(
        "SELECT \(Self.missionColumns) FROM missions WHERE \(condition) ORDER BY id LIMIT :limit"
      )
      defer { select.reset() }
      let after = afterID.map(MissionID.normalized) ?? ""
      if let state {
        try select.bind(["after": after, "state": state.rawValue, "limit": Int64(limit) + 1])
      } else {
        try select.bind(["after": after, "limit": Int64(limit) + 1])
      }
      let columns = try MissionColumns(select)
      var page: [Mission] = []
      while try select.step() { page.append(mission(from: select, columns)) }
      guard page.count > limit else { return (page, nil) }
      page.removeLast()
      return (page, page.last?.id)
    }
  }

  /// Number of delivered fixes stored for mission `id`.
  /// - Complexity: O(n) in the track's length (primary-key range count).
  package func trackCount(ofMission id: String) throws -> Int {
    try withConnection { connection in
      try commitPendingLocked(connection)
      let select = try connection.cached(
        "SELECT count(*) AS fixes FROM track WHERE mission_id = :id")
      defer { select.reset() }
      try select.bind(["id": MissionID.normalized(id)])
      return try select.step() ? Int(try select.int64("fixes")) : 0
    }
  }

  /// Removes mission `id` with everything recorded for it (transitions, track, events,
  /// fence states, rejection counts), in one transaction; the change feed logs the removal.
  /// A tracked mission (active or arrived) is refused in the same transaction, so a
  /// `missions start` by another process a moment before is never undone by a removal.
  /// - Returns: Whether there was such a mission.
  /// - Throws: `StoreError.trackedMissionRemoval` for a tracked mission (nothing removed),
  ///   another `StoreError` from SQLite.
  @discardableResult
  package func removeMission(id: String) throws -> Bool {
    let id = MissionID.normalized(id)
    return try withConnection { connection in
      try commitPendingLocked(connection)
      let removed = try connection.transaction { () -> Bool in
        // Decided here, in the transaction that deletes: another process may have started
        // the mission a moment ago.
        let select = try connection.cached("SELECT state FROM missions WHERE id = :id")
        try select.bind(["id": id])
        let stored = try select.step() ? try select.string("state") : nil
        select.reset()
        if let state = stored.flatMap(MissionState.init(rawValue:)), state.isTracking {
          throw StoreError.trackedMissionRemoval(id: id, state: state)
        }
        for table in [
          "transitions", "track", "events", "fence_state", "ingest_rejections",
          "tracking_sessions",
        ] {
          let delete = try connection.cached("DELETE FROM \(table) WHERE mission_id = :id")
          try delete.bind(["id": id])
          try delete.run()
        }
        let delete = try connection.cached("DELETE FROM missions WHERE id = :id")
        try delete.bind(["id": id])
        try delete.run()
        return connection.changes > 0
      }
      recording { _ = knownMissions.remove(id) }
      return removed
    }
  }
}

extension MissionDatabase {
  /// The sequence number of the newest stored event (0 when there is none); pending events
  /// commit first.
  package func lastEventSequence() throws -> Int64 {
    try withConnection { connection in
      try commitPendingLocked(connection)
      return try connection.integer("SELECT coalesce(max(seq), 0) FROM events") ?? 0
    }
  }
}
