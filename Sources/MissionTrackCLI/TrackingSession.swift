import CommandLineSupport
import Foundation
import MissionCatalog
import MissionTracking
import TextRules

/// One tracking run, shared by `replay` and `track`: takes the tracking lease of the
/// worker (`--worker`, default `local`), opens the engine over the store with the source
/// feeding that worker (which resumes the mission the store holds tracked for it), starts
/// the requested mission, prints the worker's events as JSON lines, and ends with a summary
/// on standard error. Other workers' trackers may run beside it on the same database.
///
/// The store is SQLite or PostgreSQL (`DatabaseOption.openCatalog`): one code path, the
/// store's own lease (`TrackingLeaseStore`).
struct TrackingSession {
  let database: any TrackingStore & TrackingLeaseStore
  /// The `--db` the store was opened from, for error lines.
  let databaseOption: DatabaseOption
  let console: Console
  let options: TrackingOptions
  /// `replay` or `track`, for messages.
  let verb: String
  /// Refresh the terminal status line every this many delivered fixes.
  var statusEvery = 1

  /// What a run did, for the summary.
  struct Outcome {
    var missionID = ""
    var deliveredFixes = 0
    var travelledMeters = 0.0
    var arrivalTime: Date?
    /// The mission had already arrived before this run (a resumed session).
    var arrivedEarlier = false
    var geofenceEvents = 0
    var lastFixTime: Date?
    var cleaning: CleaningSummary?
    var failure: String?
    /// Why tracking ended.
    var end: TrackingEnd = .shutdown
  }

  /// How long a refused claim is asked again: PostgreSQL frees a killed holder's lease when
  /// the server sees its connection close, a few milliseconds after the kill, so a tracker
  /// restarted at once still gets it (SQLite's `flock` is freed by the kernel at the exit).
  static let leaseGrace = Duration.seconds(1)

  /// `worker`'s tracking lease, asked again every 50 ms for up to `leaseGrace` while another
  /// process holds it.
  private static func claim(
    _ database: any TrackingStore & TrackingLeaseStore, holder: String, worker: String
  ) async throws -> any TrackingLeaseHandle {
    let clock = ContinuousClock()
    let deadline = clock.now + leaseGrace
    while true {
      do {
        return try database.claimTracking(holder: holder, worker: worker)
      } catch MissionRefusal.trackingLeaseHeld(_, _, _) where clock.now < deadline {
        try await Task.sleep(for: .milliseconds(50))
      }
    }
  }

  /// Tracks the mission from `source` until the source ends, the mission leaves the
  /// tracking states (here or in another process), or `stop` returns a reason; then stops
  /// tracking (the mission stays active in the store, to be resumed or submitted).
  ///
  /// When `stop` returns a reason, the stop is recorded as a `source` `ended` event.
  /// - Parameter clock: Stamps the transitions this run performs (accept, start).
  /// - Throws: `CLIError.failure` when another process tracks on the database, there is no
  ///   mission to track, or it cannot start.
  func run(
    source: any FixSource, clock: any MissionClock,
    until stop: @escaping @Sendable () async -> String?
  ) async throws -> Outcome {
    // Listening for the stop (SIGTERM) from the very start, so that a stop that comes while
    // the engine opens is not lost.
    let stopper = Task { await stop() }
    defer { stopper.cancel() }
    let holder = "missiontrack \(verb)"
    let worker = options.worker
    let database = self.database
    let lease = try await databaseOption.runtime {
      try await Self.claim(database, holder: holder, worker: worker)
    }
    defer { lease.release() }
    let engine = MissionEngine(
      store: database, sources: { $0 == worker ? source : nil }, clock: clock,
      configuration: options.configuration)
    let console = self.console
    let statusLine = console.errorIsTerminal
    let statusEvery = self.statusEvery
    let verbName = verb
    let printer = Task { () -> Outcome in
      var outcome = Outcome()
      // This run's worker only: another worker's changes reach this engine through the
      // store, and belong to that worker's own tracker.
      for await event in engine.events where event.workerID == nil || event.workerID == worker {
        console.out(event.jsonLine)
        outcome.note(event)
        if statusLine && outcome.deliveredFixes % statusEvery == 1 % statusEvery {
          console.errRaw("\r\(verbName): \(outcome.statusText)   ")
        }
      }
      return outcome
    }
    let mission: Mission
    do {
      try await engine.open()
      mission = try await start(engine)
    } catch {
      await engine.shutdown()
      _ = await printer.value
      throw error as? CLIError ?? CLIError.failure("\(error)")
    }
    // Whichever ends first: the session (source ended, mission stopped elsewhere, failure)
    // or `stop`. Shutting the engine down ends the session, so the other child returns too.
    let (end, cleaning) = await withTaskGroup(of: (TrackingEnd?, String?).self) { group in
      group.addTask { (await engine.waitUntilTrackingEnds(worker: worker), nil) }
      group.addTask { (nil, await stopper.value) }
      var result: (TrackingEnd?, String?) = (nil, nil)
      while let next = await group.next() {
        result = next
        if next.0 != nil || next.1 != nil { break }
      }
      stopper.cancel()
      let cleaning = await engine.summary(ofWorker: worker)
      await engine.shutdown(reason: result.1)
      group.cancelAll()
      return (result.0, cleaning)
    }
    var outcome = await printer.value
    outcome.missionID = mission.id
    outcome.arrivedEarlier = mission.state == .arrived
    outcome.end = end ?? .shutdown
    outcome.cleaning = await engine.lastSummary(ofWorker: worker) ?? cleaning
    outcome.failure = await engine.failure
    if statusLine { console.errRaw("\r\u{1B}[K") }
    return outcome
  }

  /// Starts the mission named by `--mission` for the worker (accepting an open one first),
  /// or continues the one the store holds tracked for it; returns it as it was before this
  /// run.
  private func start(_ engine: MissionEngine) async throws -> Mission {
    let worker = options.worker
    let shownWorker = worker.terminalSafe
    let tracked = await engine.trackedMissionID(ofWorker: worker)
    guard let id = options.missionID ?? tracked else {
      throw CLIError.failure(
        "worker \(shownWorker) has no active mission: give --mission ID (see 'missiontrack "
          + "missions list')")
    }
    if let tracked, tracked != id {
      throw CLIError.failure(
        "worker \(shownWorker) already tracks mission \(tracked.terminalSafe): submit or "
          + "cancel it first")
    }
    guard let lifecycle = await engine.lifecycle(id) else {
      throw CLIError.failure("no mission with id '\(id.terminalSafe)'")
    }
    // As it was before this run: the engine resumes a tracked mission's source as it opens,
    // and may have moved it on (a fast replay to its arrival) by now.
    var mission = lifecycle.mission
    if let first = lifecycle.transitions.first { mission.state = first.from }
    if mission.state != .open, let owner = mission.workerID, owner != worker {
      throw CLIError.failure(
        "mission \(id.terminalSafe) belongs to worker \(owner.terminalSafe), not "
          + "\(shownWorker): give --worker \(owner.terminalSafe)")
    }
    if mission.state.isTracking {
      console.err("\(verb): resuming mission \(mission.id) (\(mission.state.rawValue))")
      return mission
    }
    if mission.state == .open { try await engine.perform(.accept, on: id, worker: worker) }
    try await engine.perform(.start, on: id)
    return mission
  }
}

extension TrackingSession.Outcome {
  mutating func note(_ event: TrackingEvent) {
    switch event.kind {
    case .fix(let fix, _, let travelled):
      deliveredFixes += 1
      travelledMeters = travelled
      lastFixTime = fix.time
    case .state(_, let to) where to == .arrived:
      arrivalTime = arrivalTime ?? event.time
    case .enter, .exit, .dwell, .crossed:
      geofenceEvents += 1
    default:
      break
    }
  }

  var statusText: String {
    let time = lastFixTime.map { UTCTime.format($0) } ?? "no fix yet"
    return
      "\(deliveredFixes) fixes delivered, \(formatMeters(travelledMeters)) travelled, at \(time)"
  }

  /// The closing summary for standard error.
  func summary(verb: String) -> String {
    var lines: [String] = []
    if let cleaning {
      var rejected = cleaning.rejectionsInOrder.map { "\($0.reason.rawValue) \($0.count)" }
        .joined(separator: ", ")
      if rejected.isEmpty { rejected = "none" }
      lines.append(
        "\(verb): mission \(missionID): \(cleaning.reports) reports read, "
          + "\(cleaning.accepted) clean (\(cleaning.merged) merged), rejected: \(rejected)")
    }
    let arrival =
      arrivalTime.map { "arrived at \(UTCTime.format($0))" }
      ?? (arrivedEarlier ? "arrived in an earlier run" : "not arrived")
    lines.append(
      "\(verb): \(deliveredFixes) fixes delivered, \(formatMeters(travelledMeters)) travelled, "
        + "\(geofenceEvents) geofence events, \(arrival)")
    switch end {
    case .missionStopped(let state):
      lines.append("\(verb): tracking stopped: mission \(missionID) is \(state.rawValue) now")
    case .missionRemoved:
      lines.append("\(verb): tracking stopped: mission \(missionID) was removed")
    default:
      break
    }
    if let failure { lines.append("\(verb): stopped early: \(failure)") }
    return lines.joined(separator: "\n")
  }
}
