import Foundation
import MissionStore
import MissionTracking

/// One tracking run, shared by `replay` and `track`: picks the mission, resumes or starts
/// it, runs the tracker with the store as its sink, prints every event as a JSON line, and
/// ends with a summary on standard error.
struct TrackingSession {
  let database: MissionDatabase
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
  }

  /// Tracks the mission from `source` until the source ends or `stop` returns, then stops
  /// tracking (the mission stays active in the store, to be resumed or submitted).
  ///
  /// When `stop` returns a reason, the stop is recorded as a `source` `ended` event.
  /// - Throws: `CLIError.failure` when there is no mission to track or it cannot start.
  func run(source: any FixSource, until stop: @escaping @Sendable () async -> String?)
    async throws -> Outcome
  {
    let mission = try missionToTrack()
    let catalog: GridFenceCatalog? =
      options.otherFences ? try GridFenceCatalog(database: database, excluding: mission.id) : nil
    let tracker = MissionTracker(
      source: source, configuration: options.configuration, sink: database, catalog: catalog)
    let console = self.console
    let statusLine = console.errorIsTerminal
    let statusEvery = self.statusEvery
    let printer = Task { () -> Outcome in
      var outcome = Outcome(missionID: mission.id)
      for await event in tracker.events {
        console.out(event.jsonLine)
        outcome.note(event)
        if statusLine && outcome.deliveredFixes % statusEvery == 1 % statusEvery {
          console.errRaw("\r\(verb): \(outcome.statusText)   ")
        }
      }
      return outcome
    }
    do {
      if mission.state.isTracking {
        try await tracker.resume(mission, from: try resumePoint(of: mission))
        console.err("\(verb): resuming mission \(mission.id) (\(mission.state.rawValue))")
      } else {
        try await tracker.add(mission)
        if mission.state == .open { try await tracker.perform(.accept, on: mission.id) }
        try await tracker.perform(.start, on: mission.id)
      }
    } catch {
      await tracker.shutdown()
      _ = await printer.value
      throw CLIError.failure("\(error)")
    }
    // Whichever ends first, the source or `stop`; shutting the tracker down ends the
    // session, so the other child returns too.
    let (stopReason, cleaning) = await withTaskGroup(of: String?.self) { group in
      group.addTask {
        await tracker.waitUntilSourceEnds()
        return nil
      }
      group.addTask { await stop() }
      let first = await group.next() ?? nil
      let cleaning = await tracker.summary
      await tracker.shutdown()
      group.cancelAll()
      return (first, cleaning)
    }
    var outcome = await printer.value
    outcome.arrivedEarlier = mission.state == .arrived
    if let stopReason {
      let stopped = TrackingEvent(
        time: outcome.lastFixTime ?? Date(), missionID: mission.id,
        kind: .source(.ended, detail: stopReason))
      do {
        try database.record(stopped)
      } catch {
        throw CLIError.failure("could not record the stop: \(error)")
      }
      console.out(stopped.jsonLine)
    }
    outcome.cleaning = await tracker.lastSummary ?? cleaning
    outcome.failure = await tracker.failure
    if statusLine { console.errRaw("\r\u{1B}[K") }
    do {
      try await database.flush()
    } catch {
      throw CLIError.failure("could not save the last events: \(error)")
    }
    return outcome
  }

  /// The mission named by `--mission`, or the one active in the store.
  private func missionToTrack() throws -> Mission {
    let active = try database.activeMission()
    guard let id = options.missionID ?? active?.mission.id else {
      throw CLIError.failure(
        "no mission is active: give --mission ID (see 'missiontrack missions list')")
    }
    if let active, active.mission.id != id {
      throw CLIError.failure(
        "mission \(active.mission.id) is already active: submit or cancel it first")
    }
    guard let mission = try database.mission(id: id) else {
      throw CLIError.failure("no mission with id '\(id)'")
    }
    return mission
  }

  /// Where a restarted tracker continues: stored fence states, the last delivered fix and
  /// the distance travelled along the stored track.
  private func resumePoint(of mission: Mission) throws -> TrackingPipeline.Resume {
    let fences = try database.fenceStates(ofMission: mission.id)
    let track = try database.track(ofMission: mission.id)
    var travelled = 0.0
    for (a, b) in zip(track, track.dropFirst()) {
      travelled += a.coordinate.distance(to: b.coordinate)
    }
    return TrackingPipeline.Resume(
      fenceStates: fences, lastDelivered: track.last, travelledMeters: travelled)
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
    if let failure { lines.append("\(verb): stopped early: \(failure)") }
    return lines.joined(separator: "\n")
  }
}
