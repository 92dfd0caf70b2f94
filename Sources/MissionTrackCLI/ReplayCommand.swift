import Foundation
import MissionTracking
import TraceFormats

/// `missiontrack replay`: recorded traces through the same pipeline as live tracking.
enum ReplayCommand: Command {
  static let name = "replay"
  static let summary = "Track a mission from recorded GPX / NMEA / gpsd-JSON traces"
  static let help = """
    NAME
      missiontrack replay - track a mission from recorded traces

    SYNOPSIS
      missiontrack replay TRACE... [--mission ID] [--speed X] [--date YYYY-MM-DD]
                          [--rollover-after DATE] [--strict] [--distance-filter M] [--db PATH] [...]

    DESCRIPTION
      Feeds the traces, in the order given, through exactly the pipeline that live tracking
      uses (cleaning, 10 m distance filter, geofence evaluation), records fixes, events and
      transitions in the database, and prints every event as one JSON line on standard
      output. An accepted (or open) mission is started first; an active one is resumed
      where it stopped. The mission stays active afterwards: finish it with
      'missiontrack missions submit ID'. Trace formats are recognised from their content.
      Time is judged by the traces' own clocks, never the wall clock. A summary (reports
      read, rejected by reason, fixes delivered, distance travelled, arrival) goes to
      standard error.

    OPTIONS
      TRACE                  A GPX 1.0/1.1, NMEA 0183 or gpsd JSON file, or - for stdin.
      --speed X              Pace fixes by their timestamps at X times real time
                             (default: as fast as possible).
      --date YYYY-MM-DD      UTC date for NMEA logs that carry no date at all.
      --rollover-after DATE  Move NMEA dates before DATE forward by 1024 GPS weeks (a
                             receiver with the week-rollover bug); as decode.
      --strict               Stop at the first bad record instead of skipping it.
    \(TrackingOptions.help)

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
    let paths = try arguments.positionals()
    guard !paths.isEmpty else { throw CLIError.usage("which TRACE? (a path or -)") }
    for path in paths where path != "-" && !FileManager.default.isReadableFile(atPath: path) {
      throw CLIError.failure("cannot read trace \(path)")
    }
    let pacing: TraceReplaySource.Pacing = speed.map { .realTime(speed: $0) } ?? .asFastAsPossible
    let source = ChainedFixSource(
      sources: paths.map {
        TraceReplaySource(
          path: $0, pacing: pacing, strict: strict, fallbackDate: fallbackDate,
          rollover: rollover)
      })
    let database = try databaseOption.open()
    let session = TrackingSession(
      database: database, console: console, options: options, verb: "replay", statusEvery: 200)
    let outcome = try await session.run(source: source) {
      await waitForever()
      return nil
    }
    console.flush()
    console.err(outcome.summary(verb: "replay"))
    return outcome.failure == nil ? 0 : 1
  }
}

/// Suspends until the task is cancelled.
func waitForever() async {
  while !Task.isCancelled {
    try? await Task.sleep(for: .seconds(3600))
  }
}
