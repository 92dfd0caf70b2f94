import Foundation
import MissionCatalog
import MissionFiles
import MissionTracking

/// Bulk import: records go to the server with one `COPY … FROM STDIN` into a temporary
/// table, then into `missions` with one `INSERT … SELECT`, all in one transaction (all or
/// nothing; the change log gets one set insert and other nodes one `NOTIFY`).
///
/// A large import into an empty store builds the secondary indexes once after the insert
/// instead of maintaining them row by row (the GiST index on the geography is most of a
/// million-row import otherwise). That needs the table locked against readers until the
/// commit, which only an empty store can afford.
extension PostgresDatabase {
  /// Imports validated records (`MissionFileReader.records`), all or nothing.
  ///
  /// A mission imported in a later state than `open` without a worker belongs to `local`
  /// (DESIGN §7).
  /// - Parameters:
  ///   - records: Missions with their unknown fields (`properties`, a JSON object) and lines.
  ///   - replacingExisting: Replace stored missions with the same id (else such an id fails
  ///     the import).
  ///   - time: Recorded as the missions' update time.
  ///   - fileName: The file named in a refusal of a second tracked mission (`FILE:LINE`).
  /// - Throws: `PostgresImportError` naming the record's line for an id already stored;
  ///   `MissionRefusal.missionTracked` for a replace of a tracked mission,
  ///   `.secondTrackedMission` naming the record's line (with `fileName`) for a second
  ///   tracked mission of one worker, as the SQLite store refuses them; `PostgresError`.
  /// - Complexity: O(n log N) for n records into N stored missions.
  @discardableResult
  package func importMissions(
    _ records: [MissionRecord], replacingExisting: Bool = false, at time: Date = Date(),
    fileName: String? = nil
  ) throws -> PostgresImportSummary {
    try importRows(
      records.lazy.map { ($0.mission, $0.properties, $0.line) }, count: records.count,
      replacingExisting: replacingExisting, at: time, fileName: fileName)
  }

  /// Reads a mission file's bytes and imports its records, all or nothing, as
  /// `importMissions(_:replacingExisting:at:fileName:)` does.
  ///
  /// A large CSV is streamed: its chunks are validated on every core in the background
  /// (`MissionFileReader.csvChunk`) and each goes to `COPY` as soon as it is ready, so the
  /// server takes rows while later ones are still being checked. The answer is the one
  /// `MissionFileReader.records` and then the import would give: the first bad value in file
  /// order wins over an id twice in the file, which wins over a record the database refuses.
  /// - Parameters:
  ///   - bytes: The file's bytes.
  ///   - format: Its format.
  ///   - fileName: Names it in errors.
  ///   - replacingExisting: Replace stored missions with the same id.
  ///   - time: Recorded as the missions' update time.
  /// - Throws: `MissionFileError` for a bad record or a repeated id, `PostgresImportError`,
  ///   `MissionRefusal`, `PostgresError`.
  @discardableResult
  package func importMissions(
    _ bytes: [UInt8], format: MissionFileFormat, fileName: String,
    replacingExisting: Bool = false, at time: Date = Date()
  ) throws -> PostgresImportSummary {
    if format == .csv {
      let plan = try MissionFileReader.csvPlan(bytes, file: fileName)
      if plan.chunks > 1 {
        return try importRows(
          count: plan.recordCount, replacingExisting: replacingExisting, at: time,
          fileName: fileName
        ) { connection in
          try Self.copyStreamed(plan, fileName: fileName, connection)
        }
      }
    }
    let records = try MissionFileReader.records(bytes, format: format, file: fileName)
    return try importMissions(
      records, replacingExisting: replacingExisting, at: time, fileName: fileName)
  }

  /// Stores `missions` (no unknown fields), all or nothing, as `importMissions` does.
  @discardableResult
  package func insert(
    _ missions: [Mission], replacingExisting: Bool = false, at time: Date = Date()
  ) throws -> PostgresImportSummary {
    try importRows(
      missions.lazy.enumerated().map { ($1, "{}", $0 + 1) }, count: missions.count,
      replacingExisting: replacingExisting, at: time, fileName: nil)
  }

  /// Rows per `COPY` data message: large enough that libpq's buffer does the batching.
  private static let rowsPerChunk = 4096

  /// Records from which an import into an empty store rebuilds the indexes after the insert
  /// (below it, blocking readers of the empty table is not worth the few milliseconds).
  static let indexRebuildMinimum = 10_000

  /// The statement that receives the rows of an import.
  private static let copyImport = "COPY mission_import FROM STDIN"

  /// Runs an import of `rows` (mission, unknown fields as JSON, line), `count` of them,
  /// sent to `copyImport` a chunk at a time.
  private func importRows<Rows: Sequence<(Mission, String, Int)>>(
    _ rows: Rows, count: Int, replacingExisting: Bool, at time: Date, fileName: String?
  ) throws -> PostgresImportSummary {
    try importRows(
      count: count, replacingExisting: replacingExisting, at: time, fileName: fileName
    ) { connection in
      _ = try connection.copy(
        Self.copyImport, from: CopyChunks(rows: rows, perChunk: Self.rowsPerChunk))
    }
  }

  /// Runs an import of `count` records whose rows `copy` sends with `copyImport`;
  /// `fileName` names the file in a refusal of a second tracked mission.
  private func importRows(
    count: Int, replacingExisting: Bool, at time: Date, fileName: String?,
    copy: (PostgresConnection) throws -> Void
  ) throws -> PostgresImportSummary {
    guard count > 0 else { return PostgresImportSummary(imported: 0, new: 0) }
    let updated = Self.microseconds(time)
    return try withConnection { connection in
      try connection.transaction {
        try connection.execute(
          """
          CREATE TEMPORARY TABLE mission_import (
            line bigint NOT NULL, id text NOT NULL, title text NOT NULL, lat float8 NOT NULL,
            lon float8 NOT NULL, radius_m float8 NOT NULL, reward text, currency text,
            address text, deadline_us bigint, state text NOT NULL, worker_id text,
            properties text NOT NULL
          ) ON COMMIT DROP
          """)
        try copy(connection)
        let rebuilt =
          try count >= Self.indexRebuildMinimum ? Self.dropIndexesIfEmpty(connection) : []
        if rebuilt.isEmpty,
          let refused = try connection.query(
            """
            SELECT i.line, i.id, m.state FROM mission_import i JOIN missions m USING (id)
            WHERE NOT :replace OR m.state IN ('active', 'arrived')
            ORDER BY i.line LIMIT 1
            """, ["replace": replacingExisting]
          ).firstRow
        {
          // The SQLite store's refusals and lines (`MissionWriter`).
          let id = refused.string("id") ?? ""
          guard !replacingExisting else { throw MissionRefusal.missionTracked(id) }
          throw PostgresImportError(
            line: Int(refused.int64("line") ?? 0), id: id,
            reason: "a mission with this id is already stored")
        }
        try Self.refuseSecondTrackedMission(fileName: fileName, connection)
        let summary = try Self.insertImported(
          replacingExisting: replacingExisting, updated: updated, connection)
        for definition in rebuilt { try connection.execute(definition) }
        return summary
      }
    }
  }

  /// Refuses the first imported record (by line) that would give a worker a second tracked
  /// mission, naming the mission it already tracks (stored, or an earlier record), as the
  /// SQLite store does; the partial unique index would refuse it anyway, but without a line.
  private static func refuseSecondTrackedMission(
    fileName: String?, _ connection: PostgresConnection
  ) throws {
    guard
      let refused = try connection.query(
        """
        WITH incoming AS (
          SELECT i.line, i.id, i.state, coalesce(i.worker_id, m.worker_id, 'local') AS worker
          FROM mission_import i LEFT JOIN missions m USING (id)
          WHERE i.state IN ('active', 'arrived')
        )
        SELECT c.line, c.id, c.state, c.worker, coalesce(
          (SELECT p.id FROM incoming p WHERE p.worker = c.worker AND p.line < c.line
           ORDER BY p.line LIMIT 1),
          (SELECT m.id FROM missions m
           WHERE coalesce(m.worker_id, 'local') = c.worker AND m.state IN ('active', 'arrived')
             AND m.id NOT IN (SELECT id FROM mission_import)
           ORDER BY m.id COLLATE "C" LIMIT 1)) AS holder
        FROM incoming c ORDER BY c.line
        """
      ).firstRow(where: { $0.string("holder") != nil })
    else { return }
    throw MissionRefusal.secondTrackedMission(
      worker: refused.string("worker") ?? Worker.localID, holder: refused.string("holder") ?? "",
      requested: refused.string("id") ?? "", state: try state(refused.string("state")),
      file: fileName, line: fileName.map { _ in Int(refused.int64("line") ?? 0) })
  }

  /// Sends the records of `plan` to `copyImport` while they are validated: chunks are
  /// validated and turned into `COPY` rows in the background, and sent in file order as they
  /// become ready. After an id seen twice nothing more is sent, but the remaining chunks are
  /// still checked (a bad value wins); after a bad value nothing more is read.
  ///
  /// Runs again from the start when `withConnection` runs its body again (a new hand-over).
  /// - Throws: `MissionFileError` after the `COPY` ended (the caller's transaction then
  ///   rolls the rows sent back), `PostgresError`.
  private static func copyStreamed(
    _ plan: MissionFileReader.CSVPlan, fileName: String, _ connection: PostgresConnection
  ) throws {
    typealias Chunk = (ids: [(String, Int)], rows: [UInt8])
    let handOver = ChunkHandOver<Result<Chunk, MissionFileError>>(count: plan.chunks)
    defer { handOver.cancel() }
    handOver.produce { chunk in
      Result { () throws(MissionFileError) -> Chunk in
        let records = try MissionFileReader.csvChunk(plan, chunk)
        var rows: [UInt8] = []
        rows.reserveCapacity(records.count * 96)
        for record in records {
          CopyRow.append(
            record.mission, properties: record.properties, line: record.line, to: &rows)
        }
        return (records.map { ($0.mission.id, $0.line) }, rows)
      }
    }
    var failure: MissionFileError?
    var duplicate: MissionFileError?
    var firstLine: [String: Int] = [:]
    firstLine.reserveCapacity(plan.recordCount)
    let chunks = sequence(state: 0) { (next: inout Int) -> [UInt8]? in
      guard failure == nil, next < plan.chunks else { return nil }
      defer { next += 1 }
      switch handOver.take(next) {
      case .failure(let error):
        // The first bad value in file order (every earlier chunk was valid).
        failure = error
        return nil
      case .success(let chunk):
        guard duplicate == nil else { return [] }
        for (id, line) in chunk.ids {
          duplicate = MissionFileReader.repeatedID(
            id, line: line, file: fileName, seen: &firstLine)
          if duplicate != nil { return [] }
        }
        return chunk.rows
      }
    }
    _ = try connection.copy(copyImport, from: chunks)
    if let error = failure ?? duplicate { throw error }
  }

  /// Moves the rows of `mission_import` into `missions`.
  private static func insertImported(
    replacingExisting: Bool, updated: Int64, _ connection: PostgresConnection
  ) throws -> PostgresImportSummary {
    do throws(any Error) {
      // A mission's worker, as SQLite's `MissionWriter.withWorker` decides it: the one the
      // file names; else, past `open`, the stored one (a replace), else `local`. An open
      // mission has none unless the file names one. Here the new rows get `local` at once;
      // a replace leaves the file's gap (NULL) for the conflict clause to fill from the
      // stored row, and the rows it inserted get `local` after.
      let defaultWorker = replacingExisting ? "NULL" : "'local'"
      let select = """
        SELECT id, title, lat, lon, radius_m, reward, currency, address,
          mt_time(deadline_us), state,
          coalesce(worker_id, CASE WHEN state <> 'open' THEN \(defaultWorker) END),
          properties::json, mt_time(:updated)
        FROM mission_import
        """
      let columns = """
        INSERT INTO missions (id, title, lat, lon, radius_m, reward, currency, address,
          deadline, state, worker_id, properties, updated)
        """
      guard replacingExisting else {
        // No stored id is among them (checked above): a plain insert, counted by the
        // server, with nothing sent back.
        let inserted = try connection.query(columns + select, ["updated": updated])
        return PostgresImportSummary(
          imported: inserted.affectedRows, new: inserted.affectedRows)
      }
      let counts = try connection.query(
        """
        WITH written AS (
          \(columns) \(select)
          ON CONFLICT (id) DO UPDATE SET title = excluded.title, lat = excluded.lat,
            lon = excluded.lon, radius_m = excluded.radius_m, reward = excluded.reward,
            currency = excluded.currency, address = excluded.address,
            deadline = excluded.deadline, state = excluded.state,
            worker_id = coalesce(excluded.worker_id,
              CASE WHEN excluded.state <> 'open' THEN coalesce(missions.worker_id, 'local') END),
            properties = excluded.properties,
            updated = excluded.updated
          RETURNING (xmax = 0) AS inserted
        )
        SELECT count(*) AS total, count(*) FILTER (WHERE inserted) AS new FROM written
        """, ["updated": updated])
      try connection.query(
        """
        UPDATE missions SET worker_id = 'local'
        FROM mission_import
        WHERE missions.id = mission_import.id AND missions.worker_id IS NULL
          AND missions.state <> 'open'
        """)
      return PostgresImportSummary(
        imported: Int(counts.int64(0, "total") ?? 0), new: Int(counts.int64(0, "new") ?? 0))
    } catch let error as PostgresError
      where error.kind == .uniqueViolation
      && error.constraint == "missions_one_tracked_per_worker"
    {
      throw PostgresImportError(
        line: 0, id: "",
        reason: "the import would give a worker a second tracked mission (active or arrived)")
    }
  }

  /// When `missions` is empty: locks it until the commit (so it stays empty and no reader
  /// sees it without its indexes), drops its indexes that enforce nothing (not unique) and
  /// returns their definitions, to be run again after the insert. Else `[]` (and no lock,
  /// unless a writer got in between the check and the lock).
  ///
  /// The definitions come from the catalog, so the migrations stay their one owner; a
  /// failed import rolls the drop back with everything else.
  private static func dropIndexesIfEmpty(_ connection: PostgresConnection) throws -> [String] {
    let emptyQuery = "SELECT NOT EXISTS (SELECT 1 FROM missions) AS empty"
    guard try connection.query(emptyQuery).bool(0, "empty") == true else { return [] }
    // The lock a `DROP INDEX` would take anyway, taken first so that no writer gets in
    // between the check and the drop. Writers of other nodes wait for the commit.
    try connection.execute("LOCK TABLE missions IN ACCESS EXCLUSIVE MODE")
    guard try connection.query(emptyQuery).bool(0, "empty") == true else { return [] }
    let indexes = try connection.query(
      """
      SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition
      FROM pg_index WHERE indrelid = 'missions'::regclass AND NOT indisunique
      ORDER BY indexrelid
      """)
    var definitions: [String] = []
    for row in 0..<indexes.count {
      guard let name = indexes.string(row, "name"),
        let definition = indexes.string(row, "definition")
      else { continue }
      try connection.execute("DROP INDEX \(name)")
      definitions.append(definition)
    }
    // The index builds work in memory, and the change log's statement trigger keeps the
    // inserted rows and sorts their ids in memory instead of spilling them to temporary
    // files (the default 4 MB holds a few thousand rows); for this transaction only.
    try connection.execute(
      "SET LOCAL maintenance_work_mem = '256MB'; SET LOCAL work_mem = '256MB'")
    return definitions
  }
}

/// A refused bulk import: the record's line and id, and why; nothing was stored.
package struct PostgresImportError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The record's line in its file (0 when the refusal is not one record's).
  package var line: Int
  /// The record's mission id.
  package var id: String
  /// Why it was refused.
  package var reason: String

  /// One line naming the line and the mission.
  package var description: String {
    line > 0 ? "line \(line): mission \(id): \(reason)" : "import refused: \(reason)"
  }
}

/// `COPY` text-format data, a chunk of rows at a time.
private struct CopyChunks<Rows: Sequence<(Mission, String, Int)>>: Sequence, IteratorProtocol {
  var rows: Rows.Iterator
  let perChunk: Int

  init(rows: Rows, perChunk: Int) {
    self.rows = rows.makeIterator()
    self.perChunk = perChunk
  }

  mutating func next() -> [UInt8]? {
    var chunk: [UInt8] = []
    chunk.reserveCapacity(perChunk * 96)
    var added = 0
    while added < perChunk, let (mission, properties, line) = rows.next() {
      CopyRow.append(mission, properties: properties, line: line, to: &chunk)
      added += 1
    }
    return added == 0 ? nil : chunk
  }
}

/// The `COPY` text format of `mission_import`'s rows.
private enum CopyRow {
  /// One row: the columns of `mission_import` separated by tabs, `\N` for NULL.
  static func append(_ mission: Mission, properties: String, line: Int, to chunk: inout [UInt8]) {
    func field(_ text: String?, last: Bool = false) {
      PostgresCopyText.field(text, last: last, to: &chunk)
    }
    field(String(line))
    field(mission.id)
    field(mission.title)
    field(mission.coordinate.latitude.postgresText)
    field(mission.coordinate.longitude.postgresText)
    field(mission.geofenceRadiusMeters.postgresText)
    field(mission.reward)
    field(mission.currency)
    field(mission.address)
    field(mission.deadline.map { String(PostgresDatabase.microseconds($0)) })
    field(mission.state.rawValue)
    field(mission.workerID)
    field(properties, last: true)
  }
}
