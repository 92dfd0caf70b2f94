import MissionCatalog
import MissionFiles
import MissionTracking
import TextRules

/// Errors thrown by `MissionStore`, each with the context needed to act on it.
///
/// SQLite's result codes are mapped to these cases once, in `StoreError(resultCode:…)`
/// (GRDB's `DatabaseError.extendedResultCode`): callers match a case, never a code or a
/// message text.
package enum StoreError: Error, Sendable, Equatable, CustomStringConvertible {
  /// SQLite failed in a way no other case names: its (extended) result code, its message
  /// and the SQL that failed.
  case sqlite(code: Int, message: String, sql: String)
  /// Another connection holds the lock this one needed (`SQLITE_BUSY`, `SQLITE_LOCKED`),
  /// after the busy timeout: try again later.
  case busy(message: String, sql: String)
  /// The database (or its directory, or the file system) takes no writes
  /// (`SQLITE_READONLY`).
  case readOnly(message: String, sql: String)
  /// The file is not an SQLite database (`SQLITE_NOTADB`).
  case notADatabase(message: String, sql: String)
  /// The disk or the database is full (`SQLITE_FULL`).
  case full(message: String, sql: String)
  /// The statement was interrupted (`SQLITE_INTERRUPT`), or an import reading its file
  /// (`sql` empty).
  case interrupted(message: String, sql: String)
  /// A row broke a constraint of the schema (`SQLITE_CONSTRAINT_*`): which kind, SQLite's
  /// message and the SQL.
  case constraint(ConstraintKind, message: String, sql: String)
  /// A write would make mission `requested` tracked (active or arrived) for `worker` while
  /// that worker's mission `holder` is: at most one mission is tracked per worker. `file`
  /// and `line` name the imported record when the write came from a mission file; `state`
  /// is the state it asked for. Nothing was written.
  case secondTrackedMission(
    worker: String, holder: String, requested: String, state: MissionState,
    file: String? = nil, line: Int? = nil)
  /// A removal of mission `id` while it is tracked (in `state`, active or arrived); nothing
  /// was removed.
  case trackedMissionRemoval(id: String, state: MissionState)
  /// The database was closed before this call.
  case closed(path: String)
  /// The file was written by a newer MissionTrack (schema `found` > `supported`); it was
  /// not modified.
  case newerSchema(path: String, found: Int, supported: Int)
  /// A read-only open found a schema that needs migrating first.
  case outdatedSchema(path: String, found: Int, required: Int)
  /// No mission with this id is stored.
  case missionNotFound(String)
  /// A mission with this id is already stored.
  case duplicateMission(String)
  /// An import would replace this mission while it is tracked (active or arrived); nothing
  /// was imported.
  case missionTracked(String)
  /// An event the store does not take through this call (for example a `state` event,
  /// which is recorded by its transition).
  case invalidEvent(String)
  /// A mission file has a bad record: the file, the 1-based line where the bad value (or
  /// record) starts, the field and value when known, and why. Nothing was imported.
  case invalidMissionFile(file: String, line: Int, field: String?, value: String?, reason: String)
  /// A file could not be read at all.
  case unreadableFile(path: String, reason: String)
  /// A configuration value out of range.
  case invalidConfiguration(String)
  /// Another process tracks `worker` on this database (one tracking writer per worker).
  case trackingLeaseHeld(database: String, worker: String, holder: String)
  /// A worker id against `Identifier`'s rule (or a device id of the worker against it), or
  /// a change the worker `local` does not allow: the id and why. Nothing was changed.
  case invalidWorker(id: String, reason: String)
  /// Device `deviceID` of `protocol` is registered to another worker, `worker`; nothing
  /// was changed.
  case deviceTaken(protocol: WorkerDevice.IngestProtocol, deviceID: String, worker: String)
  /// Worker `worker` tracks mission `mission` (active or arrived): it cannot be removed
  /// until the mission is submitted or cancelled.
  case workerTracking(worker: String, mission: String)
  /// An invalid watch: its id and why. Nothing was stored.
  case invalidWatch(id: String, reason: String)
  /// An invalid webhook (its URL, filter or secret) and why. Nothing was stored.
  case invalidWebhook(String)
  /// No webhook has this id.
  case webhookNotFound(String)

  /// One line for people: what failed and the context (SQL, file and line, mission).
  ///
  /// Always a single line: the SQL is folded onto one line and cut after 80 characters (a
  /// failed migration would otherwise print the whole schema), and line breaks and other
  /// control characters inside values taken from a file are shown escaped (`\n`, `\x1B`).
  package var description: String {
    switch self {
    case .sqlite(let code, let message, let sql):
      "SQLite error \(code): \(oneLine(message, foldingWhitespace: true)) (SQL: \(oneLine(sql, limit: 80, foldingWhitespace: true)))"
    case .busy(let message, let sql): sqliteLine("database busy", message, sql)
    case .readOnly(let message, let sql): sqliteLine("database is read-only", message, sql)
    case .notADatabase(let message, let sql): sqliteLine("not an SQLite database", message, sql)
    case .full(let message, let sql): sqliteLine("database or disk full", message, sql)
    case .interrupted(let message, let sql) where sql.isEmpty:
      "interrupted: \(oneLine(message, foldingWhitespace: true))"
    case .interrupted(let message, let sql): sqliteLine("interrupted", message, sql)
    case .constraint(_, let message, let sql): sqliteLine("refused by the schema", message, sql)
    case .secondTrackedMission(let worker, let holder, let requested, let state, let file, let line):
      MissionRefusal.secondTrackedMission(
        worker: worker, holder: holder, requested: requested, state: state, file: file,
        line: line
      ).description
    case .trackedMissionRemoval(let id, let state):
      MissionRefusal.trackedMissionRemoval(id: id, state: state).description
    case .closed(let path): "database \(path) is closed"
    case .newerSchema(let path, let found, let supported):
      "database \(path) has schema version \(found), newer than this MissionTrack supports "
        + "(\(supported)); it was not modified. Use a newer missiontrack."
    case .outdatedSchema(let path, let found, let required):
      "database \(path) has schema version \(found), needs \(required): open it read-write "
        + "once to migrate"
    case .missionNotFound(let id): "no mission with id '\(oneLine(id))'"
    case .duplicateMission(let id): "mission '\(oneLine(id))' already exists"
    case .missionTracked(let id): MissionRefusal.missionTracked(id).description
    case .invalidEvent(let text): "invalid event: \(oneLine(text))"
    case .invalidMissionFile(let file, let line, let field, let value, let reason):
      MissionFileError.invalidMissionFile(
        file: file, line: line, field: field, value: value, reason: reason
      ).description
    case .unreadableFile(let path, let reason):
      MissionFileError.unreadableFile(path: path, reason: reason).description
    case .invalidConfiguration(let text): "invalid configuration: \(text)"
    case .trackingLeaseHeld(let database, let worker, let holder):
      MissionRefusal.trackingLeaseHeld(database: database, worker: worker, holder: holder)
        .description
    case .invalidWorker(let id, let reason):
      WorkerRefusal.invalidWorker(id: id, reason: reason).description
    case .deviceTaken(let kind, let deviceID, let worker):
      WorkerRefusal.deviceTaken(protocol: kind, deviceID: deviceID, worker: worker).description
    case .workerTracking(let worker, let mission):
      WorkerRefusal.workerTracking(worker: worker, mission: mission).description
    case .invalidWatch(let id, let reason): "invalid watch '\(oneLine(id, limit: 64))': \(reason)"
    case .invalidWebhook(let reason): WebhookRefusal.invalidWebhook(reason).description
    case .webhookNotFound(let id): WebhookRefusal.webhookNotFound(id).description
    }
  }
}

/// One line for an SQLite failure: what it means, SQLite's message and the SQL (folded, cut
/// after 80 characters).
private func sqliteLine(_ meaning: String, _ message: String, _ sql: String) -> String {
  "\(meaning): \(oneLine(message, foldingWhitespace: true)) "
    + "(SQL: \(oneLine(sql, limit: 80, foldingWhitespace: true)))"
}
