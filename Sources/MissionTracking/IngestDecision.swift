/// One request's pushed fixes as `EngineState` decided them, before anything of them is
/// recorded (`MissionEngine` executes its actions alone, or defers them to record with other
/// requests' batches).
struct IngestDecision {
  /// The worker the fixes came for.
  var worker: String
  /// The fixes, as pushed.
  var fixes: [Fix]
  /// What to do for them, in order.
  var actions: [EngineAction]
  /// Whether `actions` include the release of the held-back epoch
  /// (`EngineState.ingested`): they do when deciding the fixes asked only for records,
  /// which change nothing that release is decided from.
  var releasesEpoch: Bool
  /// The session's cleaning counts before the fixes.
  var before: CleaningSummary
  /// Fixes handed to the session.
  var processed: Int
  /// Fixes left out (no session, or dated before its start).
  var untracked: Int

  /// Whether `actions` only record batches.
  var onlyRecords: Bool { batches.count == actions.count }

  /// Whether the request may be recorded with other requests' batches, later in the same
  /// job: its fixes reached the session, and all it asks for, the release included, is
  /// records.
  var isDeferrable: Bool { processed > 0 && releasesEpoch && onlyRecords }

  /// The batches `actions` record, in order.
  var batches: [TrackingBatch] {
    actions.compactMap { action in
      if case .record(let batch) = action { batch } else { nil }
    }
  }

  /// The counts of the fixes once the session's cleaning counts are `after`.
  func counts(after: CleaningSummary) -> IngestCounts {
    IngestCounts(processed: processed, untracked: untracked, before: before, after: after)
  }

  /// The counts when nothing of them was recorded (another process stopped the mission).
  var countsUnrecorded: IngestCounts {
    IngestCounts(processed: 0, untracked: fixes.count, before: before, after: before)
  }
}
