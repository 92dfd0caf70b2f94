import CommandLineSupport
import MissionProximity

/// `missiontrack distance`: great-circle distance and bearing between two points.
enum DistanceCommand: Command {
  static let name = "distance"
  static let summary = "Great-circle distance and initial bearing between two points"
  static let help = """
    NAME
      missiontrack distance - distance and bearing between two points

    SYNOPSIS
      missiontrack distance --from LAT,LON --to LAT,LON [--json]

    DESCRIPTION
      Prints the haversine distance in metres on a sphere of the IUGG mean radius
      (6,371,008.8 m) and the initial bearing in degrees from true north.

    OPTIONS
      --from LAT,LON   Start point, degrees, latitude first.
      --to LAT,LON     End point, degrees, latitude first.
      --json           One JSON object instead of text.

    EXAMPLES
      missiontrack distance --from 59.3293,18.0686 --to 57.7089,11.9746
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let json = arguments.flag("--json")
    guard let fromText = try arguments.option("--from") else {
      throw CLIError.usage("--from LAT,LON is required")
    }
    guard let toText = try arguments.option("--to") else {
      throw CLIError.usage("--to LAT,LON is required")
    }
    try arguments.finish()
    let from = try parseLatLon(fromText, flag: "--from")
    let to = try parseLatLon(toText, flag: "--to")
    let meters = from.distance(to: to)
    let bearing = from.initialBearingDegrees(to: to)
    if json {
      console.out("{\"distance_m\":\(meters),\"bearing_deg\":\(bearing)}")
    } else {
      console.out(
        "\(formatMeters(meters)) at bearing \(String(format: "%.1f", bearing))°")
    }
    return 0
  }
}
