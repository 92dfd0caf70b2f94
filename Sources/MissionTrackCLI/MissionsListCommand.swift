import CommandLineSupport
import Foundation
import MissionTracking

/// `missiontrack missions list`: the stored missions as a table or JSON lines.
enum MissionsListCommand: Command {
  static let name = "list"
  static let summary = "List missions (a table, or JSON lines with --json)"
  static let help = """
    NAME
      missiontrack missions list - show the stored missions

    SYNOPSIS
      missiontrack missions list [--state STATE] [--json] [--db PATH|URI]

    DESCRIPTION
      Prints every stored mission ordered by id: a table for people (id, state, worker,
      title, reward, geofence radius, latitude and longitude) or, with --json, one JSON
      object per line:
        {"id","lat","lon","state","title","reward","currency","address","radius_m","deadline",
         "worker_id"}
      reward (decimal text), currency, address, deadline (RFC 3339 UTC) and worker_id (who
      accepted it) are omitted when the mission has none. A count goes to standard error.

    OPTIONS
      --state STATE  Only missions in STATE: open, accepted, active, arrived, submitted,
                     completed, cancelled or expired.
      --json         JSON lines instead of the table.
      --db PATH|URI  The database (default missiontrack.sqlite), or a PostgreSQL URI
                     (postgresql://USER@HOST:PORT/DB).

    EXIT STATUS
      0 success (also when nothing matches), 1 no database, 64 usage error.

    EXAMPLES
      missiontrack missions list
      missiontrack missions list --state open --json | jq -r .title
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let json = arguments.flag("--json")
    let state = try arguments.option("--state").map { try MissionState.parse($0) }
    let db = try DatabaseOption(&arguments)
    try arguments.finish()
    let database = try db.openCatalog(readOnly: true)
    let missions = try await DueMissions(database).missions(of: database, inState: state)
    if json {
      for mission in missions { console.out(mission.jsonObject) }
    } else if !missions.isEmpty {
      var table = TextTable(
        header: ["ID", "STATE", "WORKER", "TITLE", "REWARD", "RADIUS", "LAT", "LON"],
        rightAligned: [4, 5, 6, 7])
      for mission in missions {
        table.rows.append([
          mission.id, mission.state.rawValue, mission.workerID ?? "-", mission.title,
          mission.rewardText,
          formatMeters(mission.geofenceRadiusMeters),
          String(format: "%.5f", mission.coordinate.latitude),
          String(format: "%.5f", mission.coordinate.longitude),
        ])
      }
      for line in table.lines { console.out(line) }
    }
    let what = state.map { " \($0.rawValue)" } ?? ""
    console.err("\(missions.count)\(what) mission\(missions.count == 1 ? "" : "s")")
    return 0
  }
}
