import CommandLineSupport
import Foundation
import MissionTracking
import TextRules
import TraceFormats

/// `missiontrack replay`: recorded traces through the same pipeline as live tracking.
enum ReplayCommand: Command {
  static let name = "replay"
  static let summary = "Track a mission from recorded GPX / NMEA / gpsd-JSON traces"
  static let help = """
    NAME
      missiontrack replay - track a mission from recorded traces

    SYNOPSIS
      missiontrack replay TRACE... [--worker W] [--mission ID] [--speed X] [--start-at TIME]
                          [--date YYYY-MM-DD] [--rollover-after DATE] [--strict]
                          [--distance-filter M] [--db PATH|URI] [...]

    DESCRIPTION
      Feeds the traces, in the order given, through exactly the pipeline that live tracking
      uses (cleaning, 10 m distance filter, geofence evaluation), records fixes, events and
      transitions in the database, and prints every event as one JSON line on standard
      output. An accepted (or open) mission is started first; an active one is resumed
      where it stopped. The mission stays active afterwards: finish it with
      'missiontrack missions submit ID'. Trace formats are recognised from their content.
      Time is judged by the traces' own clocks, never the wall clock: the accept and start
      that replay performs itself are stamped with the first fix's time (or --start-at),
      and every other event carries fix time, so replaying the same trace into a fresh
      database twice gives byte-identical output. A summary (reports read, rejected by
      reason, fixes delivered, distance travelled, arrival) goes to standard error.

      Only one process tracks on a database at a time: a second replay, track or serve is
      refused with a message naming the holder. A submit or cancel from another shell
      stops the replay within a second, with nothing recorded after it. SIGINT and SIGTERM
      stop it cleanly: every event printed so far is written out and recorded, and the
      mission stays active, to be resumed.

    OPTIONS
      TRACE                  A GPX 1.0/1.1, NMEA 0183 or gpsd JSON file, or - for stdin.
      --speed X              Pace fixes by their timestamps at X times real time
                             (default: as fast as possible).
      --start-at TIME        Stamp replay's own accept/start with TIME (RFC 3339)
                             instead of the first fix's time.
      --date YYYY-MM-DD      UTC date for NMEA logs that carry no date at all.
      --rollover-after DATE  Move NMEA dates before DATE forward by 1024 GPS weeks (a
                             receiver with the week-rollover bug); as decode.
      --strict               Stop at the first bad record instead of skipping it.
      --speed-mps V          Walk GPX points that have no time (a planned <rte>, a saved
                             track) along the path at V m/s from --start-at (default
                             2000-01-01T00:00:00Z, or the timed point before them), the
                             way a simulator walks a planned route. Without it a trace
                             with no timed point is an error that says how many lack one.
      --waypoints            With --speed-mps: walk the <wpt> points too, in file order.
      --expect-arrival       Exit 1 with one line when the mission did not arrive, so a
                             shell test needs no JSON parsing.
      --within DURATION      With --expect-arrival: arrival must come within DURATION
                             of the start (90s, 15m, 1h30m; seconds without a unit).
    \(TrackingOptions.help)

    FAULTS
      The same faults as 'missiontrack trace mutate', applied to the traces as they are
      replayed, seeded and deterministic:
    \(FaultOptions.help)

    EXAMPLES
      missiontrack missions import Traces/demo/missions.geojson
      missiontrack missions accept sig-101
      missiontrack replay Traces/demo/walk.gpx --mission sig-101
      missiontrack replay walk.nmea --speed 10
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let databaseOption = try DatabaseOption(&arguments)
    let options = try TrackingOptions(&arguments)
    let strict = arguments.flag("--strict")
    let fallbackDate = try arguments.day("--date")
    let rollover = try arguments.day("--rollover-after").map(NMEAWeekRollover.init(pivot:))
    let speed = try arguments.double("--speed", in: 0.0001...1_000_000)
    var startAt: Date?
    if let text = try arguments.option("--start-at") {
      guard let parsed = UTCTime.parse(text), parsed.hadZone else {
        throw CLIError.usage("--start-at expects an RFC 3339 time with a zone, got '\(text)'")
      }
      startAt = parsed.date
    }
    let walkingSpeed = try arguments.double("--speed-mps", in: 0.01...1000)
    let waypoints = arguments.flag("--waypoints")
    if waypoints && walkingSpeed == nil {
      throw CLIError.usage("--waypoints goes with --speed-mps")
    }
    let faults = try FaultOptions(&arguments).faults
    let expectArrival = arguments.flag("--expect-arrival")
    var within: Double?
    if let text = try arguments.option("--within") {
      guard expectArrival else { throw CLIError.usage("--within goes with --expect-arrival") }
      guard let seconds = DurationText.seconds(text) else {
        throw CLIError.usage("--within expects a duration such as 90s, 15m or 1h30m, got '\(text)'")
      }
      within = seconds
    }
    let paths = try arguments.positionals()
    guard !paths.isEmpty else { throw CLIError.usage("which TRACE? (a path or -)") }
    for path in paths where path != "-" && !FileManager.default.isReadableFile(atPath: path) {
      throw CLIError.failure("cannot read trace \(path)")
    }
    let pacing: TraceReplaySource.Pacing = speed.map { .realTime(speed: $0) } ?? .asFastAsPossible
    let traces = ChainedFixSource(
      sources: paths.map {
        var trace = TraceReplaySource(
          path: $0, pacing: pacing, strict: strict, fallbackDate: fallbackDate,
          rollover: rollover)
        trace.untimed = walkingSpeed.map {
          UntimedReplay(
            speedMetersPerSecond: $0, start: startAt ?? UntimedReplay.defaultStart,
            includesWaypoints: waypoints)
        }
        return trace
      })
    let source: PrefetchedFixSource
    do {
      source = PrefetchedFixSource(faults.isEmpty ? traces : try traces.injectingFaults(faults))
    } catch {
      throw CLIError.usage("\(error)")
    }
    // A paced replay stands in for a live receiver: its events stream line by line.
    if speed != nil { console.flushEveryLine() }
    let database = try databaseOption.openCatalog()
    try await databaseOption.expireDue(database)
    let start: Date
    if let startAt {
      start = startAt
    } else if let first = await source.firstFixTime() {
      start = first
    } else if let failure = source.failure {
      throw CLIError.failure("\(failure)")
    } else {
      start = Date()
    }
    let session = TrackingSession(
      database: database, databaseOption: databaseOption, console: console,
      options: options, verb: "replay", statusEvery: 200)
    let outcome = try await session.run(source: source, clock: ManualClock(start)) {
      await terminationReason(console: console, verb: "replay")
    }
    console.flush()
    try await databaseOption.runtime { try await database.close() }
    console.err(outcome.summary(verb: "replay"))
    if outcome.failure != nil { return 1 }
    if expectArrival, let miss = outcome.missedArrival(startedAt: start, within: within) {
      console.err("replay: expected arrival: \(miss)")
      return 1
    }
    return 0
  }
}

extension TrackingSession.Outcome {
  /// Why the expected arrival did not happen (no arrival, or later than `within` seconds
  /// after `start`), or nil when it did.
  func missedArrival(startedAt start: Date, within: Double?) -> String? {
    guard let arrival = arrivalTime else {
      return arrivedEarlier ? nil : "mission \(missionID) did not arrive"
    }
    let took = arrival.timeIntervalSince(start)
    if let within, took > within {
      return "mission \(missionID) arrived \(DurationText.format(took)) after the start, "
        + "later than \(DurationText.format(within))"
    }
    return nil
  }
}

/// Waits for SIGINT or SIGTERM and returns the reason to record ("stopped by SIGINT"), or
/// nil when the task is cancelled first.
func terminationReason(console: Console, verb: String) async -> String? {
  let reason: String? =
    switch await TerminationSignal.wait() {
    case SIGINT: "stopped by SIGINT"
    case SIGTERM: "stopped by SIGTERM"
    default: nil
    }
  if let reason { console.err("\(verb): \(reason)") }
  return reason
}
