import MissionCatalog

/// `replay` and `track` take their lease the same way on SQLite and PostgreSQL; on SQLite
/// it is `TrackingLease`, a `flock(2)` beside the database file.
extension MissionDatabase: TrackingLeaseStore {}
