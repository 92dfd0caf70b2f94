/// One step of the schema: applied once, in order, inside a transaction, then recorded in
/// `PRAGMA user_version` and the `schema_migrations` table.
struct SchemaMigration: Sendable {
  /// The `user_version` after this step (1, 2, 3, … without gaps).
  let version: Int
  /// A short name recorded with it.
  let name: String
  /// The DDL; constant text, no values.
  let sql: String
  /// A change to a table's definition made in place, before `sql`.
  var edit: TableDefinitionEdit? = nil

  /// Every migration of this release, in order. Never edit a released step: add one.
  static let all: [SchemaMigration] = [
    SchemaMigration(version: 1, name: "initial schema", sql: initialSchema),
    SchemaMigration(version: 2, name: "compact fix events", sql: compactFixEvents),
    SchemaMigration(version: 3, name: "one tracked mission, change feed", sql: engineSupport),
    SchemaMigration(version: 4, name: "spatial cell index, deadline index", sql: spatialIndex),
    SchemaMigration(version: 5, name: "event sequence never reused", sql: eventSequence),
    SchemaMigration(
      version: 6, name: "state check without a list", sql: "", edit: stateCheckWithoutList),
    SchemaMigration(version: 7, name: "workers, one tracked mission per worker", sql: workers),
    SchemaMigration(version: 8, name: "outbox: webhooks, cursors, deliveries", sql: outbox),
    SchemaMigration(version: 9, name: "device registry version", sql: deviceRegistry),
  ]

  /// Version 9: `device_registry`, one row whose `version` every change to `worker_devices`
  /// moves (its triggers; a removed worker's devices go by cascade, which fires them too),
  /// whichever process makes it. `serve` keeps the registrations its phones present in
  /// memory and forgets them when this number has moved (`ServiceStore.deviceRegistryVersion`).
  static let deviceRegistry = """
    CREATE TABLE device_registry (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      version INTEGER NOT NULL
    );
    INSERT INTO device_registry (id, version) VALUES (1, 0);
    CREATE TRIGGER worker_devices_insert AFTER INSERT ON worker_devices BEGIN
      UPDATE device_registry SET version = version + 1;
    END;
    CREATE TRIGGER worker_devices_update AFTER UPDATE ON worker_devices BEGIN
      UPDATE device_registry SET version = version + 1;
    END;
    CREATE TRIGGER worker_devices_delete AFTER DELETE ON worker_devices BEGIN
      UPDATE device_registry SET version = version + 1;
    END;
    """

  /// Version 7: workers (DESIGN §7).
  ///
  /// - `workers` (with `local`, the rig's own receiver, which always exists) and
  ///   `worker_devices`, the phones and trackers that feed a worker (removed with it).
  /// - `missions.worker_id`: the worker who accepted the mission, kept for its history (no
  ///   foreign key: removing a worker leaves the history of its missions as it was). Every
  ///   mission past `open` in an older file belongs to `local`, the only worker there was.
  /// - At most one tracked mission per worker: the unique partial index on the worker
  ///   replaces the one per database (`missions_one_tracked`), so a tracked mission of the
  ///   file stays tracked, now by `local`.
  /// - `events.worker_id` (which worker the event is about) with an index for reading one
  ///   worker's events in order, and `events.watch_id` for `mission_nearby`. Older events
  ///   keep no worker: they were recorded, and print, without one.
  /// - `watches`: the standing nearby queries.
  /// Adding nullable columns rewrites nothing; the one UPDATE reads the missions once and
  /// writes those past `open` (the change feed's trigger does not list `worker_id`, so it
  /// logs nothing: no mission moved).
  static let workers = """
    CREATE TABLE workers (
      id TEXT PRIMARY KEY NOT NULL,
      name TEXT
    ) WITHOUT ROWID;
    INSERT INTO workers (id) VALUES ('local');
    CREATE TABLE worker_devices (
      protocol TEXT NOT NULL,
      device_id TEXT NOT NULL,
      worker_id TEXT NOT NULL REFERENCES workers (id) ON DELETE CASCADE,
      secret TEXT,
      PRIMARY KEY (protocol, device_id)
    ) WITHOUT ROWID;
    CREATE INDEX worker_devices_by_worker ON worker_devices (worker_id);
    ALTER TABLE missions ADD COLUMN worker_id TEXT;
    UPDATE missions SET worker_id = 'local' WHERE state != 'open';
    DROP INDEX missions_one_tracked;
    CREATE UNIQUE INDEX missions_one_tracked_per_worker ON missions (worker_id)
      WHERE state IN ('active', 'arrived');
    ALTER TABLE events ADD COLUMN worker_id TEXT;
    ALTER TABLE events ADD COLUMN watch_id TEXT;
    CREATE INDEX events_by_worker ON events (worker_id, seq) WHERE worker_id IS NOT NULL;
    CREATE TABLE watches (
      id TEXT PRIMARY KEY NOT NULL,
      lat REAL NOT NULL CHECK (lat BETWEEN -90 AND 90),
      lon REAL NOT NULL CHECK (lon BETWEEN -180 AND 180),
      radius_m REAL NOT NULL CHECK (radius_m >= 0),
      worker_id TEXT,
      state TEXT
    ) WITHOUT ROWID;
    """

  /// Version 6: the CHECK on `missions.state` compares with each state in turn instead of
  /// testing membership in a list. It accepts the same values, but SQLite builds a list of
  /// more than two values into a temporary table for every row it checks: that alone was
  /// about a third of a large import's insert time (1M rows: 1.8–2.9 s with the list,
  /// 1.1–1.3 s without, the same INSERT … SELECT). Changed in place (no row is checked or
  /// moved), so the step is instant on any size.
  static let stateCheckWithoutList = TableDefinitionEdit(
    table: "missions",
    old: """
      CHECK (state IN ('open', 'accepted', 'active',
          'arrived', 'submitted', 'completed', 'cancelled', 'expired'))
      """,
    new: """
      CHECK (state = 'open' OR state = 'accepted' OR state = 'active'
          OR state = 'arrived' OR state = 'submitted' OR state = 'completed'
          OR state = 'cancelled' OR state = 'expired')
      """)

  /// Version 5: `events.seq` becomes AUTOINCREMENT, so a number once given is never given
  /// again. A plain rowid takes the largest one plus one, so removing the mission with the
  /// newest events handed their numbers to the next mission's, and a client reading the
  /// stream (`Last-Event-ID`) skipped those as already seen. The table is copied as it is
  /// (SQLite cannot add AUTOINCREMENT to a table in place).
  static let eventSequence = """
    CREATE TABLE events_v5 (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      mission_id TEXT NOT NULL REFERENCES missions (id),
      type TEXT NOT NULL,
      time_us INTEGER NOT NULL,
      json TEXT NOT NULL,
      distance_m REAL, travelled_m REAL, fence_id TEXT, initial INTEGER, seconds REAL,
      from_state TEXT, to_state TEXT, status TEXT, detail TEXT, count INTEGER
    );
    INSERT INTO events_v5 SELECT seq, mission_id, type, time_us, json, distance_m, travelled_m,
      fence_id, initial, seconds, from_state, to_state, status, detail, count FROM events;
    DROP TABLE events;
    ALTER TABLE events_v5 RENAME TO events;
    CREATE INDEX events_by_mission ON events (mission_id, seq);
    """

  /// Version 4, so one-shot commands answer from indexes instead of reading every mission.
  ///
  /// - `missions_by_cell`: the mission's cell of a fixed 1/64° grid
  ///   (`MissionCell.sqlExpression`, an expression of `lat` and `lon` kept in step by SQLite
  ///   itself on every insert, update and delete, with no trigger and no code path to
  ///   forget), then `state`, `lat`, `lon` and the id every index of a WITHOUT ROWID table
  ///   carries. A nearby query reads a few key ranges of it and nothing else
  ///   (`nearbyMissions`), the state filter inside them; the bulk location read for the
  ///   in-memory grid is still a covering scan. The cell leads because an integer first
  ///   column that nearly always decides a comparison halves the time to build the index
  ///   (0.8 s against 1.5 s for a million missions, where nearly all have one state). It
  ///   replaces `missions_by_state`, which served the bulk read but not the spatial one:
  ///   one index to maintain on an import, not two. Listing by state reads the table in id
  ///   order instead, which is what it returns.
  /// - `missions_by_deadline`: missions with a deadline by state and deadline, so the expiry
  ///   every command runs first (`expireDue`) reads the due ones instead of every open
  ///   mission.
  /// The cell expression is frozen here: queries must spell it the same way (a test pins it).
  static let spatialIndex = """
    DROP INDEX missions_by_state;
    CREATE INDEX missions_by_cell ON missions (
      (CAST((lat + 90.0) * 64.0 AS INTEGER) * 23041 + CAST((lon + 180.0) * 64.0 AS INTEGER)),
      state, lat, lon);
    CREATE INDEX missions_by_deadline ON missions (state, deadline_us)
      WHERE deadline_us IS NOT NULL;
    """

  /// Version 3, for the engine.
  ///
  /// - At most one mission in a tracking state (`active`, `arrived`): a unique partial
  ///   index, so no code path and no process can store two. A file that already holds
  ///   several (older versions allowed it) keeps the most recently changed one; the others
  ///   are cancelled, each with a recorded transition (action `cancel`).
  /// - A change feed for other processes: every insert, update and delete of a mission is
  ///   appended to `mission_changes` (inserts by the store's insert itself, updates and
  ///   deletes by triggers: a trigger per inserted row made a large import twice as slow); a
  ///   tracking process asks for the log rows after the last `seq` it saw.
  /// - `tracking_sessions`: the distance travelled by the tracked mission, as the engine
  ///   computed it, for a resume.
  /// - Typed events: every member of an event has its column (`fence_id`, `initial`,
  ///   `seconds` (dwell), `from_state`, `to_state`, `status` (source status or rejection
  ///   reason), `detail`, `count`, and `distance_m` for enter, exit and the closest approach
  ///   of crossed), so events are read back as values, never re-parsed. Rows written before
  ///   get their columns from their JSON text here (SQLite's JSON functions) and keep the
  ///   text as the line they print.
  static let engineSupport = """
    ALTER TABLE events ADD COLUMN fence_id TEXT;
    ALTER TABLE events ADD COLUMN initial INTEGER;
    ALTER TABLE events ADD COLUMN seconds REAL;
    ALTER TABLE events ADD COLUMN from_state TEXT;
    ALTER TABLE events ADD COLUMN to_state TEXT;
    ALTER TABLE events ADD COLUMN status TEXT;
    ALTER TABLE events ADD COLUMN detail TEXT;
    ALTER TABLE events ADD COLUMN count INTEGER;
    UPDATE events SET
      fence_id = json_extract(json, '$.fence_id'),
      initial = json_extract(json, '$.initial'),
      seconds = json_extract(json, '$.dwell_s'),
      from_state = json_extract(json, '$.from'),
      to_state = json_extract(json, '$.to'),
      status = coalesce(json_extract(json, '$.status'), json_extract(json, '$.reason')),
      detail = json_extract(json, '$.detail'),
      count = json_extract(json, '$.count'),
      distance_m = coalesce(distance_m, json_extract(json, '$.distance_m'),
        json_extract(json, '$.closest_m')),
      travelled_m = coalesce(travelled_m, json_extract(json, '$.travelled_m'))
    WHERE json != '' AND json_valid(json);
    INSERT INTO transitions (mission_id, action, from_state, to_state, time_us)
      SELECT id, 'cancel', state, 'cancelled', updated_us FROM missions
      WHERE state IN ('active', 'arrived') AND id != (
        SELECT id FROM missions WHERE state IN ('active', 'arrived')
        ORDER BY updated_us DESC, id LIMIT 1);
    UPDATE missions SET state = 'cancelled'
      WHERE state IN ('active', 'arrived') AND id != (
        SELECT id FROM missions WHERE state IN ('active', 'arrived')
        ORDER BY updated_us DESC, id LIMIT 1);
    CREATE UNIQUE INDEX missions_one_tracked ON missions ((state IN ('active', 'arrived')))
      WHERE state IN ('active', 'arrived');
    CREATE TABLE mission_changes (
      seq INTEGER PRIMARY KEY,
      id TEXT NOT NULL,
      removed INTEGER NOT NULL DEFAULT 0 CHECK (removed IN (0, 1))
    );
    CREATE TRIGGER missions_change_update AFTER UPDATE OF id, title, lat, lon, radius_m, reward,
      currency, address, deadline_us, state, properties ON missions BEGIN
      INSERT INTO mission_changes (id) VALUES (NEW.id);
    END;
    CREATE TRIGGER missions_change_delete AFTER DELETE ON missions BEGIN
      INSERT INTO mission_changes (id, removed) VALUES (OLD.id, 1);
    END;
    CREATE TABLE tracking_sessions (
      mission_id TEXT PRIMARY KEY NOT NULL REFERENCES missions (id),
      travelled_m REAL NOT NULL,
      updated_us INTEGER NOT NULL
    ) WITHOUT ROWID;
    """

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
