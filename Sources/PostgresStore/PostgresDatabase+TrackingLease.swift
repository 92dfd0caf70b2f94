import MissionCatalog

/// `replay`, `track` and `serve` take their lease the same way on SQLite and PostgreSQL; on
/// PostgreSQL it is a session advisory lock (`PostgresLeaseHolder`), taken by
/// `claimTracking(holder:worker:)` (in `PostgresDatabase+ServiceStore.swift`).
extension PostgresDatabase: TrackingLeaseStore {}
