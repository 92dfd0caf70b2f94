import MissionCatalog

/// The SQLite store answers `serve` with its own methods; its tracking lease is a lock file
/// beside the database (`TrackingLease`).
extension MissionDatabase: ServiceStore {}
