import CommandLineSupport
import Foundation
import LiveSources
import MissionTracking
import TraceFormats

/// `missiontrack track`: follow the active mission live from gpsd or a raw NMEA device.
enum TrackCommand: Command {
  static let name = "track"
  static let summary = "Track the active mission live from gpsd or an NMEA device"
  static let help = """
    NAME
      missiontrack track - follow the active mission live

    SYNOPSIS
      missiontrack track [--gpsd HOST:PORT [--device PATH] | --nmea PATH [--baud N]]
                         [--worker W] [--mission ID] [--db PATH|URI] [...]

    DESCRIPTION
      Tracks the mission that is active in the database (or starts the accepted mission
      given with --mission) from a live fix source, records fixes, events and transitions
      in the database and prints every event as one JSON line on standard output. A
      one-line status is shown on standard error when it is a terminal.

      The source is opened only now, while a mission is tracked, and closed when tracking
      stops: on SIGINT or SIGTERM (events are flushed, the mission stays active and is
      resumed by the next 'track'), or when the mission is submitted or cancelled from
      another shell ('missiontrack missions submit ID'), which track notices within 1 s.
      If gpsd is not running or goes away, track reports 'source' events (disconnected,
      reconnecting, connected, gap) and keeps retrying with capped exponential backoff.

    OPTIONS
    \(LiveSourceOptions.help)
    \(TrackingOptions.help)

    EXAMPLES
      missiontrack missions accept sig-101
      missiontrack track --mission sig-101
      missiontrack track --gpsd 127.0.0.1:29470
      missiontrack track --nmea /dev/ttyUSB0 --baud 9600
      gpspipe -r | missiontrack track --nmea -
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let databaseOption = try DatabaseOption(&arguments)
    let options = try TrackingOptions(&arguments, live: true)
    let live = try LiveSourceOptions(&arguments)
    try arguments.finish()
    let source = try live.source()
    console.flushEveryLine()
    let database = try databaseOption.openCatalog()
    try await databaseOption.expireDue(database)
    let session = TrackingSession(
      database: database, databaseOption: databaseOption, console: console,
      options: options, verb: "track")
    let outcome = try await session.run(source: source, clock: WallClock()) {
      await terminationReason(console: console, verb: "track")
    }
    console.flush()
    try await databaseOption.runtime { try await database.close() }
    console.err(outcome.summary(verb: "track"))
    return outcome.failure == nil ? 0 : 1
  }
}
