/// One step of the schema: applied once, in order, inside a transaction, then recorded in
/// `PRAGMA user_version` and the `schema_migrations` table.
struct SchemaMigration: Sendable {
  /// The `user_version` after this step (1, 2, 3, … without gaps).
  let version: Int
  /// A short name recorded with it.
  let name: String
  /// The DDL; constant text, no values.
  let sql: String

  /// Every migration of this release, in order. Never edit a released step: add one.
  static let all: [SchemaMigration] = [
    SchemaMigration(version: 1, name: "initial schema", sql: initialSchema),
    SchemaMigration(version: 2, name: "compact fix events", sql: compactFixEvents),
  ]

  /// Version 2. A `fix` event's line repeats its fix, which the `track` row already holds:
  /// new fix events store an empty `json` and the two numbers the track lacks
  /// (`distance_m`, `travelled_m`); their line is rebuilt on read from the track row at
  /// `(mission_id, time_us)`, byte for byte as `TrackingEvent.jsonLine` printed it. Rows
  /// written before keep their text, and an event whose line would not survive the rebuild
  /// exactly (a non-finite value, `-0.0`, an event time other than its fix's) keeps it too.
  /// Adding nullable columns rewrites nothing, so the step is instant on any size.
  static let compactFixEvents = """
    ALTER TABLE events ADD COLUMN distance_m REAL;
    ALTER TABLE events ADD COLUMN travelled_m REAL;
    """

  /// Version 1. Times are INTEGER microseconds since 1970-01-01T00:00:00Z (UTC), so they
  /// compare and deduplicate exactly; states are the lowercase `MissionState` names.
  static let initialSchema = """
    CREATE TABLE schema_migrations (
      version INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      applied_us INTEGER NOT NULL
    );
    CREATE TABLE missions (
      id TEXT PRIMARY KEY NOT NULL,
      title TEXT NOT NULL DEFAULT '',
      lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
      lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
      radius_m REAL NOT NULL CHECK (radius_m > 0),
      reward TEXT,
      currency TEXT,
      address TEXT,
      deadline_us INTEGER,
      state TEXT NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'accepted', 'active',
        'arrived', 'submitted', 'completed', 'cancelled', 'expired')),
      properties TEXT NOT NULL DEFAULT '{}',
      updated_us INTEGER NOT NULL
    ) WITHOUT ROWID;
    -- Serves the state filter and, with the id every index of a WITHOUT ROWID table
    -- carries, covers the bulk (id, lat, lon, state) read that rebuilds the proximity index.
    CREATE INDEX missions_by_state ON missions (state, lat, lon);
    CREATE TABLE transitions (
      seq INTEGER PRIMARY KEY,
      mission_id TEXT NOT NULL REFERENCES missions (id),
      action TEXT,
      from_state TEXT NOT NULL,
      to_state TEXT NOT NULL,
      time_us INTEGER NOT NULL
    );
    CREATE INDEX transitions_by_mission ON transitions (mission_id, seq);
    CREATE TABLE track (
      mission_id TEXT NOT NULL REFERENCES missions (id),
      time_us INTEGER NOT NULL,
      lat REAL NOT NULL,
      lon REAL NOT NULL,
      alt_m REAL,
      eph_m REAL,
      speed_mps REAL,
      course_deg REAL,
      mode INTEGER NOT NULL,
      satellites INTEGER,
      source TEXT NOT NULL,
      PRIMARY KEY (mission_id, time_us)
    ) WITHOUT ROWID;
    CREATE TABLE events (
      seq INTEGER PRIMARY KEY,
      mission_id TEXT NOT NULL REFERENCES missions (id),
      type TEXT NOT NULL,
      time_us INTEGER NOT NULL,
      json TEXT NOT NULL
    );
    CREATE INDEX events_by_mission ON events (mission_id, seq);
    CREATE TABLE fence_state (
      mission_id TEXT NOT NULL REFERENCES missions (id),
      fence_id TEXT NOT NULL,
      inside INTEGER NOT NULL CHECK (inside IN (0, 1)),
      since_us INTEGER,
      dwell_reported INTEGER NOT NULL CHECK (dwell_reported IN (0, 1)),
      updated_us INTEGER NOT NULL,
      PRIMARY KEY (mission_id, fence_id)
    ) WITHOUT ROWID;
    CREATE TABLE ingest_rejections (
      mission_id TEXT NOT NULL REFERENCES missions (id),
      reason TEXT NOT NULL,
      count INTEGER NOT NULL CHECK (count >= 0),
      PRIMARY KEY (mission_id, reason)
    ) WITHOUT ROWID;
    """
}
