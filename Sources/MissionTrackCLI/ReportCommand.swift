import CommandLineSupport
import Foundation
import MissionReporting
import MissionTracking

/// `missiontrack report ID -o FILE`: a self-contained map picture of a mission.
enum ReportCommand: Command {
  static let name = "report"
  static let summary = "Draw a mission's track, geofence and events as an SVG or HTML map"
  static let help = """
    NAME
      missiontrack report - a map picture of what happened on a mission

    SYNOPSIS
      missiontrack report ID -o FILE.svg|FILE.html [--db PATH|URI]

    DESCRIPTION
      Loads mission ID, its recorded track and its events from the database and draws a
      self-contained map: the track (with times along it), the geofence circle and its exit
      margin, the mission point, enter/dwell/exit/crossed markers, a scale bar, a north
      arrow, a legend and a title block with the mission's facts. It is drawn in a local
      azimuthal equidistant projection around the mission point, north up: no map tiles,
      no network, no external fonts or scripts. .svg writes a standalone SVG 1.1 file,
      .html an HTML page holding the same SVG. FILE is replaced atomically; its path is
      printed on standard error.

      Only this mission's fence is drawn, so enter/dwell/exit/crossed events of other
      missions' fences passed on the way are left out (export --format jsonl has them all).
      A mission with no track yet still gets a picture: its fence and point.

    OPTIONS
      -o FILE      The picture to write, ending in .svg, .html or .htm.
      --db PATH|URI
                   The database (default missiontrack.sqlite), or a PostgreSQL URI
                   (postgresql://USER@HOST:PORT/DB).

    EXIT STATUS
      0 success, 1 unknown mission, no database or unwritable FILE, 64 usage error.

    EXAMPLES
      missiontrack report sig-101 -o sig-101.svg
      missiontrack report sig-101 -o /tmp/sig-101.html && xdg-open /tmp/sig-101.html
      rsvg-convert sig-101.svg -o sig-101.png
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    guard let output = try arguments.option("-o") ?? arguments.option("--output") else {
      throw CLIError.usage("-o FILE.svg or -o FILE.html is required")
    }
    let db = try DatabaseOption(&arguments)
    let ids = try arguments.positionals()
    guard ids.count == 1, let id = ids.first else {
      throw CLIError.usage(ids.isEmpty ? "which mission ID?" : "one mission ID only")
    }
    guard ReportFormat(path: output) != nil else {
      throw CLIError.usage("-o FILE must end in .svg or .html, got '\(output)'")
    }
    let database = try db.openCatalog()
    try await db.expireDue(database)
    let report = try await CLIError.asyncRuntime {
      guard let mission = try await database.mission(id: id) else {
        throw CLIError.failure("no mission with id '\(id)'")
      }
      return MissionReport(
        mission: mission, track: try await database.track(ofMission: mission.id),
        events: try await database.trackingEvents(ofMission: mission.id))
    }
    try ReportRenderer().write(
      report, toPath: output, console: console, database: db.databaseFile)
    console.err(
      "wrote \(output) (mission \(id): \(report.track.count) fixes, \(report.events.count) events)")
    return 0
  }
}
