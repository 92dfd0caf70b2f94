import Foundation
import MissionFiles
import MissionTracking

extension MissionDatabase {
  /// Imports missions from a CSV, JSON or GeoJSON file, all or nothing.
  ///
  /// Every record is validated (id required; lat/lon in range; `radius_m` > 0, default 50;
  /// `deadline` RFC 3339 with a zone; `state` a lifecycle state, default `open`; `reward` a
  /// decimal amount; `currency` three letters). Unknown fields are kept as the mission's
  /// extra properties. Numeric ids are kept as their text. The first bad record fails the
  /// import with its line and nothing is stored (one transaction).
  ///
  /// - Parameters:
  ///   - url: The file (a regular file or a named pipe; not a directory or a device). The
  ///     format comes from `format`, else from the extension (`.csv`, `.geojson`; `.json`
  ///     holding an object is read as GeoJSON).
  ///   - format: Overrides the extension.
  ///   - replacingExisting: Update missions whose id is already stored instead of failing.
  ///   - time: Recorded as the missions' update time.
  /// - Returns: What was stored.
  /// - Throws: `StoreError.invalidMissionFile` (file, line, field, value, reason),
  ///   `StoreError.secondTrackedMission` (with the file and line), `StoreError.missionTracked`,
  ///   `StoreError.unreadableFile`, another `StoreError` from SQLite.
  /// - Complexity: O(n log N) for n records into N stored missions.
  @discardableResult
  package func importMissions(
    from url: URL, format: MissionFileFormat? = nil, replacingExisting: Bool = false,
    at time: Date = Date()
  ) throws -> ImportSummary {
    let bytes = try StoreError.reading { () throws(MissionFileError) in
      try InputFile.bytes(atPath: url.path)
    }
    guard
      let resolved = format ?? MissionFileFormat(fileName: url.lastPathComponent, bytes: bytes)
    else {
      throw StoreError.unreadableFile(
        path: url.path, reason: "unknown extension: use .csv, .json or .geojson, or pass a format")
    }
    return try importMissions(
      bytes, format: resolved, fileName: url.lastPathComponent,
      replacingExisting: replacingExisting, at: time)
  }

  /// Imports missions from the bytes of a file in `format`, all or nothing (see
  /// `importMissions(from:format:replacingExisting:at:)`); `fileName` names it in errors.
  ///
  /// `interrupt()` stops it in every phase: while the file is split and validated as well
  /// as while it is stored.
  @discardableResult
  package func importMissions(
    _ bytes: [UInt8], format: MissionFileFormat, fileName: String,
    replacingExisting: Bool = false, at time: Date = Date()
  ) throws -> ImportSummary {
    let isInterrupted = interruptCheck()
    if format == .csv {
      let plan = try StoreError.reading { () throws(MissionFileError) in
        try MissionFileReader.csvPlan(bytes, file: fileName, isInterrupted: isInterrupted)
      }
      if plan.chunks > 1 {
        return try importPipelined(
          plan, replacingExisting: replacingExisting, at: time, fileName: fileName,
          isInterrupted: isInterrupted)
      }
    }
    let records = try StoreError.reading { () throws(MissionFileError) in
      try MissionFileReader.records(
        bytes, format: format, file: fileName, isInterrupted: isInterrupted)
    }
    return try withConnection { connection in
      let replaced = try connection.transaction {
        let replaced = try withBulkLoadLocked(adding: records.count, connection) {
          try storeLocked(records, replace: replacingExisting, at: time, fileName, connection)
        }
        try Self.refuseCommitIfInterrupted(isInterrupted, fileName)
        return replaced
      }
      return ImportSummary(
        format: format, missionIDs: records.map(\.mission.id), replacedCount: replaced)
    }
  }

  /// Imports a large CSV while it is validated: chunks are validated on every core in the
  /// background and stored in file order as they become ready, so SQLite works while later
  /// rows are still being checked.
  ///
  /// The answer is the one a pass that validates everything first would give: a bad value
  /// anywhere in the file wins over a duplicate id within it, which wins over a row the
  /// database refuses (a stored id, a second tracked mission). After a duplicate or a
  /// refusal nothing more is stored, but the remaining chunks are still checked before the
  /// transaction is rolled back.
  private func importPipelined(
    _ plan: MissionFileReader.CSVPlan, replacingExisting: Bool, at time: Date,
    fileName: String, isInterrupted: @escaping @Sendable () -> Bool
  ) throws -> ImportSummary {
    let handOver = ChunkHandOver<Result<[MissionRecord], StoreError>>(count: plan.chunks)
    handOver.produce { chunk in
      Result { () throws(StoreError) -> [MissionRecord] in
        try StoreError.reading { () throws(MissionFileError) in
          try MissionFileReader.csvChunk(plan, chunk, isInterrupted: isInterrupted)
        }
      }
    }
    var ids: [String] = []
    ids.reserveCapacity(plan.recordCount)
    let replaced = try withConnection { connection in
      try connection.transaction {
        let replaced = try withBulkLoadLocked(adding: plan.recordCount, connection) {
          var firstLine: [String: Int] = [:]
          firstLine.reserveCapacity(plan.recordCount)
          var duplicate: StoreError?
          var refused: (any Error)?
          var replaced = 0
          for chunk in 0..<plan.chunks {
            let records: [MissionRecord]
            switch handOver.take(chunk) {
            case .success(let validated): records = validated
            case .failure(let error):
              // The first bad value in file order (every earlier chunk was valid), or the
              // validation was interrupted.
              handOver.cancel()
              throw error
            }
            // An interrupt while this chunk was awaited found no statement to stop.
            if isInterrupted() {
              handOver.cancel()
              throw StoreError(MissionFileError.interrupted(file: fileName))
            }
            if duplicate == nil {
              for index in records.indices {
                if let repeated = MissionFileReader.repeatedID(
                  records[index].mission.id, line: records[index].line, file: fileName,
                  seen: &firstLine)
                {
                  duplicate = StoreError(repeated)
                  break
                }
              }
            }
            guard duplicate == nil, refused == nil else { continue }
            for index in records.indices { ids.append(records[index].mission.id) }
            do {
              replaced += try storeLocked(
                records, replace: replacingExisting, at: time, fileName, connection)
            } catch {
              // Interrupted (`interrupt()`: a stopping server): SQLite rolled the
              // transaction back already, so the rest is not worth validating.
              if case StoreError.interrupted = error {
                handOver.cancel()
                throw error
              }
              refused = error
            }
          }
          if let duplicate { throw duplicate }
          if let refused { throw refused }
          return replaced
        }
        try Self.refuseCommitIfInterrupted(isInterrupted, fileName)
        return replaced
      }
    }
    return ImportSummary(format: .csv, missionIDs: ids, replacedCount: replaced)
  }

  /// Throws `interrupted` when `interrupt()` was called since the import began: checked
  /// last before the commit, since an interrupt that came between two statements (after
  /// the last insert, before or after an index rebuild) stopped none of them.
  private static func refuseCommitIfInterrupted(
    _ isInterrupted: () -> Bool, _ fileName: String
  ) throws {
    if isInterrupted() { throw StoreError(MissionFileError.interrupted(file: fileName)) }
  }

  /// Stores validated records inside the caller's transaction; a refused record fails with
  /// its line. Returns how many replaced a stored mission.
  private func storeLocked(
    _ records: [MissionRecord], replace: Bool, at time: Date, _ fileName: String,
    _ connection: SQLiteConnection
  ) throws -> Int {
    let writer = try MissionWriter(connection)
    let updated = microseconds(time)
    func refused(_ record: MissionRecord, _ error: any Error) -> any Error {
      switch error {
      case StoreError.duplicateMission(let id):
        StoreError.invalidMissionFile(
          file: fileName, line: record.line, field: "id", value: id,
          reason: "a mission with this id is already stored")
      case StoreError.secondTrackedMission(let worker, let holder, let requested, let state, _, _):
        StoreError.secondTrackedMission(
          worker: worker, holder: holder, requested: requested, state: state, file: fileName,
          line: record.line)
      case StoreError.constraint(_, let message, _):
        // A value the schema refuses, so the record is bad.
        StoreError.invalidMissionFile(
          file: fileName, line: record.line, field: nil, value: nil, reason: message)
      default: error
      }
    }
    if !replace {
      try writer.insertNew(
        records.map { ($0.mission, $0.properties) }, updated: updated, connection
      ) { index, error in throw refused(records[index], error) }
      return 0
    }
    var replaced = 0
    for record in records {
      do {
        // Record ids are already in NFC (`MissionRecord.validate`).
        if try writer.write(
          record.mission, properties: record.properties, replace: replace,
          updated: updated)
        {
          replaced += 1
        }
      } catch {
        throw refused(record, error)
      }
    }
    return replaced
  }
}
