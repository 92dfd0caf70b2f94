import CommandLineSupport
import Foundation
import MissionCatalog
import MissionFiles
import MissionTracking
import TextRules

/// `missiontrack missions accept|start|submit|complete|cancel|expire ID`: one lifecycle
/// action on a stored mission, recorded with its time.
enum MissionsActionCommand {
  /// The actions a person takes (`arrive` is taken by tracking, not by hand).
  static let actions: [MissionAction] = [.accept, .start, .submit, .complete, .cancel, .expire]

  /// One line for the group's list.
  static func summary(of action: MissionAction) -> String {
    switch action {
    case .accept: "open → accepted"
    case .start: "accepted → active (tracked by a running 'serve', 'track' or 'replay')"
    case .arrive: "active → arrived (taken by tracking)"
    case .submit: "active or arrived → submitted"
    case .complete: "submitted → completed"
    case .cancel: "open, accepted, active or arrived → cancelled"
    case .expire: "open or accepted → expired"
    }
  }

  /// The manual of `missions ACTION`.
  static func help(for action: MissionAction) -> String {
    let word = action.rawValue
    let workerNote =
      action == .accept
      ? """

        The mission gets its worker here: --worker W (default local, the rig's own
        receiver). An unknown worker is an error naming it ('missiontrack workers add W').

      """ : ""
    let note =
      action == .start
      ? """

        start records the state; it does not read a GPS itself. A 'missiontrack serve'
        on the same database tracks the mission from its source at once. Without one,
        'missiontrack track' (gpsd) and 'missiontrack replay TRACE' (recorded traces)
        track it, and both start an accepted mission themselves. Each worker tracks at
        most one mission: starting a second one of the same worker is refused naming the
        worker and the mission it tracks.

      """ : workerNote
    return """
      NAME
        missiontrack missions \(word) - \(summary(of: action))

      SYNOPSIS
        missiontrack missions \(word) ID\(action == .accept ? " [--worker W]" : "") [--at TIME] [--db PATH|URI]

      DESCRIPTION
        Applies the lifecycle action '\(word)' to mission ID in one transaction: the new
        state, the audit-log row and the state event are stored together. The transition
        is printed on standard error (open → accepted) and its state event as one JSON line
        on standard output:
          {"type":"state","time","mission_id","worker_id","from","to"}
        worker_id is the mission's worker (absent while nobody accepted it).
        Repeating an action that already took effect changes nothing and prints no event.
        An action the mission's state does not allow prints why (mission, state, action),
        changes nothing and exits 1.
      \(note)
      LIFECYCLE
        open → accepted → active → arrived → submitted → completed; cancel from open,
        accepted, active or arrived; expire from open or accepted.

      OPTIONS\(action == .accept ? "\n  --worker W   The accepting worker (default local)." : "")
        --at TIME    When it happened, RFC 3339 (default now), e.g. 2026-05-01T09:00:00Z.
        --db PATH|URI
                     The database (default missiontrack.sqlite), or a PostgreSQL URI
                     (postgresql://USER@HOST:PORT/DB).

      EXIT STATUS
        0 done (or already done), 1 illegal action, unknown mission or worker, a second
        tracked mission of one worker, or no database, 64 usage error.

      EXAMPLES
        missiontrack missions \(word) sig-101
        missiontrack missions \(word) sig-101 --at 2026-05-01T09:00:00Z --db field.sqlite
      """
  }

  /// Applies `action` to the mission named in `arguments`.
  static func run(_ action: MissionAction, _ arguments: inout ArgumentList, console: Console)
    async throws -> Int32
  {
    var time = Date()
    if let text = try arguments.option("--at") {
      guard let parsed = UTCTime.parse(text), parsed.hadZone else {
        throw CLIError.usage("--at expects an RFC 3339 time with a zone, got '\(text)'")
      }
      time = parsed.date
    }
    let worker = action == .accept ? try arguments.workerOption() : nil
    let db = try DatabaseOption(&arguments)
    let id = try arguments.missionID()
    let database = try db.openCatalog()
    try await db.expireDue(database)
    let transition = try await CLIError.asyncRuntime {
      try await apply(action, toMission: id, worker: worker, at: time, in: database)
    }
    try await CLIError.asyncRuntime { try await database.close() }
    if transition.from == transition.to {
      console.err("\(id): already \(transition.to.rawValue), nothing changed")
    } else {
      console.err("\(id): \(transition.from.rawValue) → \(transition.to.rawValue)")
      console.out(transition.event.jsonLine)
    }
    return 0
  }

  /// Applies `action` to stored mission `id` on either store: the lifecycle decides on the
  /// stored mission (`MissionLifecycle`), the store records the transition compare-and-set
  /// (`TrackingStore.commit`), which refuses an unknown worker and a second tracked mission
  /// of one worker. A mission another process changed between the read and the commit is
  /// read and decided again.
  /// - Returns: The transition; `from == to` when the action had already taken effect
  ///   (nothing recorded).
  /// - Throws: `CLIError.failure` for an unknown mission; `TrackingError` (illegal action,
  ///   accepted by another worker, unknown worker, worker busy); a store error.
  static func apply(
    _ action: MissionAction, toMission id: String, worker: String?, at time: Date,
    in store: any MissionCatalogStore & TrackingStore
  ) async throws -> MissionTransition {
    let id = MissionID.normalized(id)
    var attempts = 0
    while true {
      guard let mission = try await store.mission(id: id) else {
        throw CLIError.failure("no mission with id '\(oneLine(id))'")
      }
      let transition = try MissionLifecycle(mission: mission).outcome(
        of: action, at: time, worker: worker.map(Identifier.normalized))
      guard transition.from != transition.to else { return transition }
      do {
        try await store.commit(transition)
        return transition
      } catch TrackingError.changedElsewhere where attempts < 3 {
        attempts += 1
      }
    }
  }
}
