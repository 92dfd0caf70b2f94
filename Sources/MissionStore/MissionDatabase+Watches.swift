import Foundation
import MissionTracking
import TextRules

/// Watches, the standing nearby queries, and the events they record (DESIGN §7, schema
/// version 7). The engine decides when a mission enters a watch's result set; the store
/// keeps the watches and records the `mission_nearby` events it is given.
extension MissionDatabase {
  /// Records events that belong to no tracking session (`mission_nearby`), in order, in
  /// one transaction after the pending events (so the log keeps their order).
  /// - Throws: `StoreError.invalidEvent` for an event of another kind (a session's events
  ///   go through `record(_:)`, transitions through `commit(_:)`; nothing is recorded),
  ///   `StoreError.missionNotFound` for an unknown mission, another `StoreError`.
  package func recordEvents(_ events: [TrackingEvent]) throws {
    for event in events {
      guard case .nearby = event.kind else {
        throw StoreError.invalidEvent(
          "a \(event.type) event for mission \(event.missionID) belongs to a tracking session "
            + "or a transition, not to recordEvents")
      }
    }
    try withConnection { connection in
      for event in events { try ensureKnownLocked(event.missionID, connection) }
      try commitPendingLocked(connection)
      try connection.transaction {
        for event in events {
          try insertEventLocked(event, time: microseconds(event.time), connection)
        }
      }
      counters.events += events.count
    }
  }

  /// Every standing watch, by id.
  package func watches() throws -> [Watch] {
    try withConnection { connection in
      let select = try connection.cached(
        "SELECT id, lat, lon, radius_m, worker_id, state FROM watches ORDER BY id")
      defer { select.reset() }
      var watches: [Watch] = []
      while try select.step() {
        watches.append(
          Watch(
            id: try select.string("id") ?? "",
            coordinate: Coordinate(
              uncheckedLatitude: try select.double("lat"), longitude: try select.double("lon")),
            radiusMeters: try select.double("radius_m"),
            workerID: try select.string("worker_id"),
            state: try select.string("state").flatMap(MissionState.init(rawValue:))))
      }
      return watches
    }
  }

  /// Adds watch `watch.id` or replaces it.
  /// - Throws: `StoreError.invalidWatch` for an id (or worker id) against `Identifier` or a
  ///   radius that is negative or not finite; another `StoreError`.
  package func saveWatch(_ watch: Watch) throws {
    if let problem = Identifier.problem(with: watch.id) {
      throw StoreError.invalidWatch(id: watch.id, reason: "id \(problem)")
    }
    guard watch.radiusMeters.isFinite, watch.radiusMeters >= 0 else {
      throw StoreError.invalidWatch(
        id: watch.id, reason: "radius_m must be a finite number ≥ 0, got \(watch.radiusMeters)")
    }
    if let worker = watch.workerID, let problem = Identifier.problem(with: worker) {
      throw StoreError.invalidWatch(id: watch.id, reason: "worker_id \(problem)")
    }
    try withConnection { connection in
      let save = try connection.cached(
        """
        INSERT INTO watches (id, lat, lon, radius_m, worker_id, state)
        VALUES (:id, :lat, :lon, :radius, :worker, :state)
        ON CONFLICT (id) DO UPDATE SET lat = excluded.lat, lon = excluded.lon,
          radius_m = excluded.radius_m, worker_id = excluded.worker_id, state = excluded.state
        """)
      try save.bind([
        "id": Identifier.normalized(watch.id), "lat": watch.coordinate.latitude,
        "lon": watch.coordinate.longitude, "radius": watch.radiusMeters,
        "worker": watch.workerID.map(Identifier.normalized), "state": watch.state?.rawValue,
      ])
      try save.run()
    }
  }

  /// Removes watch `id`; false when there was none.
  package func removeWatch(id: String) throws -> Bool {
    try withConnection { connection in
      let delete = try connection.cached("DELETE FROM watches WHERE id = :id")
      try delete.bind(["id": Identifier.normalized(id)])
      try delete.run()
      return connection.changes > 0
    }
  }
}
