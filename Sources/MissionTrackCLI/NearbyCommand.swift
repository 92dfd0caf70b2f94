import CommandLineSupport
import Foundation
import MissionProximity
import MissionTracking
import TextRules

/// `missiontrack nearby`: missions near a point, nearest first, from the database's spatial index.
enum NearbyCommand: Command {
  static let name = "nearby"
  static let summary = "Missions near a point, nearest first (radius and/or k nearest)"
  static let defaultRadiusMeters: Double = 1000
  static let help = """
    NAME
      missiontrack nearby - which missions are near this point?

    SYNOPSIS
      missiontrack nearby --lat LAT --lon LON [--radius M] [--k K]
                          [--state STATE | --all] [--json] [--db PATH|URI]

    DESCRIPTION
      Reads the missions near the point from the database's spatial index (the other
      missions are not loaded) and prints them, nearest first (ties by id), with the
      great-circle distance (haversine, IUGG mean radius). The filter is applied before the limit, so --k gives the K nearest missions
      that match it.
        neither --radius nor --k   missions within 1000 m
        --radius M                 every mission within M metres (boundary inclusive)
        --k K                      the K nearest, however far
        --radius M --k K           the K nearest within M metres
      By default only open missions are shown (the ones a worker can take); --state picks
      another state and --all shows every state.

      A table for people (id, title, reward, distance) or, with --json, one JSON object per
      line, nearest first:
        {"id","lat","lon","distance_m","state","title"}

    OPTIONS
      --lat LAT      Latitude of the point, degrees in [-90, 90].
      --lon LON      Longitude of the point, degrees in [-180, 180].
      --radius M     Search radius in metres, >= 0.
      --k K          At most K missions, >= 0.
      --state STATE  Only missions in STATE (default open).
      --all          Missions in every state.
      --json         JSON lines instead of the table.
      --db PATH|URI  The database (default missiontrack.sqlite), or a PostgreSQL URI
                     (postgresql://USER@HOST:PORT/DB).

    EXIT STATUS
      0 success (also when nothing is near), 1 no database, 64 usage error.

    EXAMPLES
      missiontrack nearby --lat 59.6175 --lon 17.7230
      missiontrack nearby --lat 59.6175 --lon 17.7230 --radius 300 --json
      missiontrack nearby --lat 59.6175 --lon 17.7230 --k 3 --all
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let json = arguments.flag("--json")
    let all = arguments.flag("--all")
    guard let lat = try arguments.double("--lat", in: -90...90) else {
      throw CLIError.usage("--lat LAT is required")
    }
    guard let lon = try arguments.double("--lon", in: -180...180) else {
      throw CLIError.usage("--lon LON is required")
    }
    var radius = try arguments.double("--radius", in: 0...Double.greatestFiniteMagnitude)
    let k = try arguments.int("--k", in: 0...Int.max)
    let stateText = try arguments.option("--state")
    if all, stateText != nil { throw CLIError.usage("--state and --all exclude each other") }
    let state: MissionState? = all ? nil : try stateText.map { try MissionState.parse($0) } ?? .open
    let db = try DatabaseOption(&arguments)
    try arguments.finish()
    if radius == nil, k == nil { radius = defaultRadiusMeters }
    let center = try Coordinate(latitude: lat, longitude: lon)
    let database = try db.openCatalog(readOnly: true)
    let due = try await DueMissions(database)
    // Answered from the database's spatial index: only the missions near the point are read.
    let matches: [ProximityMatch] = try await CLIError.asyncRuntime {
      // `radius` is nil only when `k` is given (the default radius is set above).
      try await database.nearbyMissions(
        within: radius, of: center, limit: k, state: state, due: due.ids)
    }
    var table = TextTable(header: ["ID", "TITLE", "REWARD", "DISTANCE"], rightAligned: [2, 3])
    for match in matches {
      let mission = try await CLIError.asyncRuntime {
        guard let mission = try await database.mission(id: match.id).map(due.shown) else {
          throw CLIError.failure("mission '\(match.id)' vanished from the database")
        }
        return mission
      }
      if json {
        var line = JSONObjectWriter()
        line.add("id", mission.id)
        line.add("lat", mission.coordinate.latitude)
        line.add("lon", mission.coordinate.longitude)
        line.add("distance_m", match.distanceMeters)
        line.add("state", mission.state.rawValue)
        line.add("title", mission.title)
        console.out(line.result)
      } else {
        table.rows.append([
          mission.id, mission.title, mission.rewardText, formatMeters(match.distanceMeters),
        ])
      }
    }
    if !json, !matches.isEmpty { for line in table.lines { console.out(line) } }
    let kind = state.map { "\($0.rawValue) " } ?? ""
    var what = "\(matches.count) \(kind)mission\(matches.count == 1 ? "" : "s")"
    if let radius { what += " within \(formatMeters(radius))" }
    if let k { what += " (at most \(k))" }
    console.err(what + String(format: " of %.5f, %.5f", lat, lon))
    return 0
  }
}
