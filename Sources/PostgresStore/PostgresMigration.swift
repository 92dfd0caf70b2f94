/// One numbered step of the PostgreSQL schema: applied once, in order, in a transaction, and
/// recorded in `schema_migrations`. Never edit a released step: add one.
struct PostgresMigration: Sendable {
  /// The version after this step (1, 2, 3, … without gaps).
  let version: Int
  /// A short name recorded with it.
  let name: String
  /// The DDL; constant text, no values.
  let sql: String

  /// Every step of this release, in order.
  static let all: [PostgresMigration] = [
    PostgresMigration(version: 1, name: "initial schema", sql: initialSchema),
    PostgresMigration(version: 2, name: "missions keep a removed worker's id", sql: workerHistory),
    PostgresMigration(version: 3, name: "the outbox: webhooks, deliveries, cursors", sql: outbox),
    PostgresMigration(
      version: 4, name: "missions located by a GiST index on geometry", sql: geometryIndex),
    PostgresMigration(
      version: 5, name: "tracking sessions count their batches", sql: sessionVersions),
    PostgresMigration(version: 6, name: "group commit of recorded batches", sql: groupCommit),
    PostgresMigration(
      version: 7, name: "time conversions inlined into statements", sql: inlinedTimes),
    PostgresMigration(version: 8, name: "device registry version", sql: deviceRegistry),
  ]

  /// Version 8: `device_registry`, one row whose `version` every row changed in
  /// `worker_devices` moves (a removed worker's devices go by cascade, which fires it too),
  /// on any node. Each node keeps the registrations its phones present in memory and forgets
  /// them when this number has moved (`ServiceStore.deviceRegistryVersion`).
  static let deviceRegistry = """
    CREATE TABLE device_registry (
      id integer PRIMARY KEY CHECK (id = 1),
      version bigint NOT NULL
    );
    INSERT INTO device_registry (id, version) VALUES (1, 0);
    CREATE FUNCTION mt_device_registry_moved() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      UPDATE device_registry SET version = version + 1;
      RETURN NULL;
    END $$;
    CREATE TRIGGER worker_devices_registry AFTER INSERT OR UPDATE OR DELETE
      ON worker_devices FOR EACH ROW EXECUTE FUNCTION mt_device_registry_moved();
    CREATE TRIGGER worker_devices_registry_truncate AFTER TRUNCATE
      ON worker_devices FOR EACH STATEMENT EXECUTE FUNCTION mt_device_registry_moved();
    """

  /// Version 2: `missions.worker_id` without a foreign key, as in the SQLite store (DESIGN
  /// §7): removing a worker leaves the history of the missions it accepted as it was. An
  /// accept checks its worker instead, under a share lock on the worker's row
  /// (`PostgresDatabase.commit`), so a removal at the same time waits for it.
  static let workerHistory = "ALTER TABLE missions DROP CONSTRAINT missions_worker_id_fkey"

  /// Version 4: the GiST index of `missions` on `location::geometry` (the same point in
  /// degrees) in place of the one on the geography. PostGIS builds a geometry GiST index by
  /// sorting the points (3.1 and later), a geography one only by inserting them one by one:
  /// for a million missions about 2.5 s against 7–13 s, the largest share of a bulk import
  /// (`PostgresDatabase.importMissions`, which rebuilds the index). `nearby` reads its
  /// candidates through a latitude/longitude box on this index
  /// (`PostgresDatabase.nearbyMissions`). `location` stays, for QGIS and `ogr2ogr`.
  ///
  /// (Version 3 is the outbox's, from a parallel change; a database at 2 takes both.)
  static let geometryIndex = """
    DROP INDEX missions_location;
    CREATE INDEX missions_location_geometry ON missions USING gist ((location::geometry));
    """

  /// Version 5: `tracking_sessions.version`, the number of batches recorded for the
  /// mission's session. Several nodes decide one worker's positions: each batch names the
  /// version it was decided from, and `PostgresDatabase.record` stores it only while the row
  /// (locked to the transaction's end) still holds that version, so no two nodes record
  /// decisions made from one state (DESIGN §10).
  static let sessionVersions =
    "ALTER TABLE tracking_sessions ADD COLUMN version bigint NOT NULL DEFAULT 0"

  /// Version 6: what group commit needs (`PostgresDatabase.flush()`). `durability_marks`
  /// is the row a flush writes to wait for the disk once for every batch committed before
  /// it (a slot per process id modulo 1,024, so nodes rarely share one). The foreign keys
  /// of `track` and `events` go: each statement that writes them holds its mission's row
  /// first (`record` and `recordEvents` `FOR SHARE`, a transition's compare-and-set
  /// `UPDATE`), and `removeMission` deletes both before the mission, so the keys only cost
  /// a look-up per stored fix and event.
  static let groupCommit = """
    ALTER TABLE track DROP CONSTRAINT track_mission_id_fkey;
    ALTER TABLE events DROP CONSTRAINT events_mission_id_fkey;
    CREATE TABLE durability_marks (slot integer PRIMARY KEY, marked timestamptz NOT NULL)
    """

  /// Version 7: `mt_time` and `mt_us` are `STABLE`, as their bodies are (time zone
  /// arithmetic on `timestamptz`). Declared `IMMUTABLE`, the planner would not put their
  /// bodies into a statement, and each call ran as a SQL function of its own, about 1.5 µs
  /// a row: when recording still inserted from arrays, three calls per fix (the track row,
  /// its `RETURNING`, the event), some 10 % of the server's time at ingest; still one a row
  /// for every read of a track or of the event log. Nothing needs them immutable (no index
  /// or generated column uses them), and their results are the same.
  static let inlinedTimes = """
    ALTER FUNCTION mt_time(bigint) STABLE;
    ALTER FUNCTION mt_us(timestamptz) STABLE
    """

  /// The advisory lock key that serializes migrations of nodes starting at once
  /// (`'missiontrack'` as bytes).
  static let lockKey: Int64 = 0x6d_6973_7369_6f6e

  /// Applies the missing steps under an advisory lock, so nodes starting together migrate
  /// once. A database written by a newer schema is refused before anything is written.
  static func migrate(_ connection: PostgresConnection, steps: [PostgresMigration] = all)
    throws
  {
    try connection.execute("SELECT pg_advisory_lock(\(lockKey))")
    defer { try? connection.execute("SELECT pg_advisory_unlock(\(lockKey))") }
    try connection.execute(
      """
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied timestamptz NOT NULL DEFAULT now()
      )
      """)
    let current =
      try connection.query("SELECT coalesce(max(version), 0) AS version FROM schema_migrations")
      .int64(0, "version") ?? 0
    let known = steps.last?.version ?? 0
    guard current <= known else {
      throw PostgresError(
        kind: .newerSchema,
        message: "the database has schema version \(current), newer than this build's \(known)")
    }
    for step in steps where step.version > current {
      try connection.transaction {
        try connection.execute(step.sql)
        try connection.query(
          "INSERT INTO schema_migrations (version, name) VALUES (:version, :name)",
          ["version": step.version, "name": step.name])
      }
    }
  }

  /// Version 1: the whole store of issue 25's contract, made for PostgreSQL + PostGIS.
  ///
  /// - Times are `timestamptz` (microseconds, as the SQLite store's `*_us` integers);
  ///   `mt_time(us)` and `mt_us(time)` convert exactly, so statements bind and read
  ///   integers.
  /// - `missions.location` is a `geography(Point,4326)` generated from `lat`/`lon` (so an
  ///   import sends two numbers and can never disagree with it), with a GiST index: QGIS and
  ///   `ogr2ogr` read the table as a point layer.
  /// - `missions_one_tracked_per_worker`: a partial unique index, so no node can store two
  ///   tracked missions of one worker (a mission without a worker counts as `local`'s).
  /// - `mission_changes`: every insert, update and delete of a mission, appended by
  ///   statement triggers reading the transition tables (one set insert per statement, not a
  ///   trigger call per row of a million-row import). Every statement that writes missions
  ///   first takes a transaction-scoped advisory lock (a BEFORE statement trigger, so before
  ///   any row lock: no deadlock between two writers): log numbers are then handed out in
  ///   commit order, so a reader that saw number n has seen every change before it and "the
  ///   rows after n" never skips one committed late. A statement trigger on the log sends one `NOTIFY mission_changes` per
  ///   statement (identical notifications of one transaction are folded by the server).
  /// - `events`: the outbox, one typed column per member as in the SQLite store (a fix
  ///   event's fix is its `track` row at the same mission and time).
  /// - `mission_tracks`: each mission's delivered track as a LineString in time order (a
  ///   mission with fewer than two fixes has no line).
  static let initialSchema = """
    CREATE EXTENSION IF NOT EXISTS postgis;
    CREATE FUNCTION mt_time(us bigint) RETURNS timestamptz
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN timestamptz 'epoch' + us * interval '1 microsecond';
    CREATE FUNCTION mt_us(t timestamptz) RETURNS bigint
      LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
      RETURN (extract(epoch FROM t) * 1000000)::bigint;

    CREATE TABLE workers (
      id text PRIMARY KEY,
      name text
    );
    INSERT INTO workers (id) VALUES ('local');
    CREATE TABLE worker_devices (
      protocol text NOT NULL,
      device_id text NOT NULL,
      worker_id text NOT NULL REFERENCES workers (id) ON DELETE CASCADE,
      secret text,
      PRIMARY KEY (protocol, device_id)
    );

    CREATE TABLE missions (
      id text PRIMARY KEY,
      title text NOT NULL DEFAULT '',
      lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
      lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
      location geography(Point, 4326) NOT NULL
        GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(lon, lat), 4326)::geography) STORED,
      radius_m double precision NOT NULL DEFAULT 50 CHECK (radius_m > 0),
      reward text,
      currency text,
      address text,
      deadline timestamptz,
      state text NOT NULL DEFAULT 'open' CHECK (state IN ('open', 'accepted', 'active',
        'arrived', 'submitted', 'completed', 'cancelled', 'expired')),
      worker_id text REFERENCES workers (id),
      properties json NOT NULL DEFAULT '{}',
      updated timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX missions_location ON missions USING gist (location);
    CREATE UNIQUE INDEX missions_one_tracked_per_worker ON missions ((coalesce(worker_id, 'local')))
      WHERE state IN ('active', 'arrived');
    CREATE INDEX missions_by_deadline ON missions (state, deadline) WHERE deadline IS NOT NULL;
    CREATE INDEX missions_by_worker ON missions (worker_id) WHERE worker_id IS NOT NULL;

    CREATE TABLE transitions (
      seq bigserial PRIMARY KEY,
      mission_id text NOT NULL REFERENCES missions (id),
      action text,
      from_state text NOT NULL,
      to_state text NOT NULL,
      worker_id text,
      time timestamptz NOT NULL
    );
    CREATE INDEX transitions_by_mission ON transitions (mission_id, seq);

    CREATE TABLE track (
      mission_id text NOT NULL REFERENCES missions (id),
      time timestamptz NOT NULL,
      lat double precision NOT NULL,
      lon double precision NOT NULL,
      alt_m double precision,
      eph_m double precision,
      speed_mps double precision,
      course_deg double precision,
      mode smallint NOT NULL,
      satellites integer,
      source text NOT NULL,
      PRIMARY KEY (mission_id, time)
    );

    CREATE TABLE events (
      seq bigserial PRIMARY KEY,
      mission_id text NOT NULL REFERENCES missions (id),
      worker_id text,
      type text NOT NULL,
      time timestamptz NOT NULL,
      distance_m double precision,
      travelled_m double precision,
      fence_id text,
      initial boolean,
      seconds double precision,
      from_state text,
      to_state text,
      status text,
      detail text,
      count bigint,
      watch_id text
    );
    CREATE INDEX events_by_mission ON events (mission_id, seq);
    CREATE INDEX events_by_worker ON events (worker_id, seq) WHERE worker_id IS NOT NULL;

    CREATE TABLE fence_state (
      mission_id text NOT NULL REFERENCES missions (id),
      fence_id text NOT NULL,
      inside boolean NOT NULL,
      since timestamptz,
      dwell_reported boolean NOT NULL,
      updated timestamptz NOT NULL,
      PRIMARY KEY (mission_id, fence_id)
    );
    CREATE TABLE tracking_sessions (
      mission_id text PRIMARY KEY REFERENCES missions (id),
      worker_id text NOT NULL,
      travelled_m double precision NOT NULL,
      updated timestamptz NOT NULL
    );
    CREATE TABLE ingest_rejections (
      mission_id text NOT NULL REFERENCES missions (id),
      reason text NOT NULL,
      count bigint NOT NULL CHECK (count >= 0),
      PRIMARY KEY (mission_id, reason)
    );
    CREATE TABLE watches (
      id text PRIMARY KEY,
      lat double precision NOT NULL CHECK (lat BETWEEN -90 AND 90),
      lon double precision NOT NULL CHECK (lon BETWEEN -180 AND 180),
      radius_m double precision NOT NULL CHECK (radius_m >= 0),
      worker_id text,
      state text CHECK (state IN ('open', 'accepted', 'active', 'arrived', 'submitted',
        'completed', 'cancelled', 'expired'))
    );

    CREATE VIEW mission_tracks AS
      SELECT t.mission_id, m.worker_id,
        ST_MakeLine(ST_SetSRID(ST_MakePoint(t.lon, t.lat), 4326) ORDER BY t.time)
          ::geometry(LineString, 4326) AS geom
      FROM track t JOIN missions m ON m.id = t.mission_id
      GROUP BY t.mission_id, m.worker_id
      HAVING count(*) >= 2;

    CREATE TABLE mission_changes (
      seq bigserial PRIMARY KEY,
      id text NOT NULL,
      removed boolean NOT NULL DEFAULT false
    );
    CREATE FUNCTION mt_lock_mission_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_advisory_xact_lock(7166313370516418414);
      RETURN NULL;
    END $$;
    CREATE TRIGGER missions_log_lock BEFORE INSERT OR UPDATE OR DELETE ON missions
      FOR EACH STATEMENT EXECUTE FUNCTION mt_lock_mission_changes();
    CREATE FUNCTION mt_log_mission_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        INSERT INTO mission_changes (id, removed) SELECT id, true FROM old_rows ORDER BY id;
      ELSE
        INSERT INTO mission_changes (id) SELECT id FROM new_rows ORDER BY id;
      END IF;
      RETURN NULL;
    END $$;
    CREATE TRIGGER missions_log_insert AFTER INSERT ON missions
      REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION mt_log_mission_changes();
    CREATE TRIGGER missions_log_update AFTER UPDATE ON missions
      REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION mt_log_mission_changes();
    CREATE TRIGGER missions_log_delete AFTER DELETE ON missions
      REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION mt_log_mission_changes();
    CREATE FUNCTION mt_notify_mission_changes() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM pg_notify('mission_changes', '');
      RETURN NULL;
    END $$;
    CREATE TRIGGER mission_changes_notify AFTER INSERT ON mission_changes
      FOR EACH STATEMENT EXECUTE FUNCTION mt_notify_mission_changes();
    """
}
