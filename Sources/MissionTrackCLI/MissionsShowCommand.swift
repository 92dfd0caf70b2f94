import CommandLineSupport
import Foundation
import MissionTracking
import TextRules

/// `missiontrack missions show ID`: one mission with its audit log, track size and geofence
/// state.
enum MissionsShowCommand: Command {
  static let name = "show"
  static let summary = "Show one mission: details, transitions, track size, fence state"
  static let help = """
    NAME
      missiontrack missions show - everything stored about one mission

    SYNOPSIS
      missiontrack missions show [--json] [--db PATH|URI] [--] ID

    DESCRIPTION
      Prints the mission's fields, its lifecycle transitions (the audit log, oldest first,
      with their times), how many fixes its recorded track holds and whether the worker is
      inside its geofence (and since when; unknown before any fix). With --json, one JSON
      object: the fields of 'missions list --json' plus
        "track_fixes"  number of delivered fixes stored
        "inside"       true/false: the stored geofence state
        "fence"        inside, outside, or unknown before any fix (as the service says)
        "inside_since" RFC 3339 time of the enter, when inside
        "transitions"  [{"action","from","to","time"}, …]

      Text output shows control characters in free text escaped (\\n, \\x1B); --json keeps
      the exact text. The id is matched in Unicode NFC. Put -- before an id that starts
      with -.

    OPTIONS
      --json       One JSON object instead of text.
      --db PATH|URI
                   The database (default missiontrack.sqlite), or a PostgreSQL URI
                   (postgresql://USER@HOST:PORT/DB).

    EXIT STATUS
      0 success, 1 unknown mission or no database, 64 usage error.

    EXAMPLES
      missiontrack missions show sig-101
      missiontrack missions show sig-101 --json | jq .transitions
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let json = arguments.flag("--json")
    let db = try DatabaseOption(&arguments)
    let id = try arguments.missionID()
    let database = try db.openCatalog(readOnly: true)
    let due = try await DueMissions(database)
    let (mission, transitions, fixCount, fence) = try await CLIError.asyncRuntime {
      guard let mission = try await database.mission(id: id).map(due.shown) else {
        throw CLIError.failure("no mission with id '\(id)'")
      }
      // The stored id (NFC) from here on.
      return (
        mission, try await database.transitions(ofMission: mission.id),
        try await database.track(ofMission: mission.id).count,
        try await database.fenceStates(ofMission: mission.id)[mission.id]
      )
    }
    if json {
      var out = String(mission.jsonObject.dropLast())
      var extra = JSONObjectWriter()
      extra.add("track_fixes", fixCount)
      extra.add("inside", fence?.isInside == true)
      extra.add("fence", FenceState.position(fence, trackFixes: fixCount))
      extra.addIfPresent("inside_since", fence?.insideSince.map { UTCTime.format($0) })
      let log = transitions.map(\.jsonObject).joined(separator: ",")
      extra.addRaw("transitions", json: "[" + log + "]")
      out += "," + extra.result.dropFirst()
      console.out(out)
      return 0
    }
    // Free text from the import file is shown escaped (see `String.terminalSafe`).
    var lines = [
      "\(mission.id.terminalSafe)  \(mission.title.terminalSafe)",
      "  state      \(mission.state.rawValue)",
      "  worker     \((mission.workerID ?? "-").terminalSafe)",
      "  reward     \(mission.rewardText.terminalSafe)",
      "  address    \((mission.address ?? "-").terminalSafe)",
      String(
        format: "  location   %.6f, %.6f (lat, lon)", mission.coordinate.latitude,
        mission.coordinate.longitude),
      "  geofence   \(formatMeters(mission.geofenceRadiusMeters)) radius",
      "  deadline   \(mission.deadline.map { UTCTime.format($0) } ?? "-")",
      "  track      \(fixCount) fix\(fixCount == 1 ? "" : "es")",
      "  fence      " + FenceState.position(fence, trackFixes: fixCount)
        + (fence?.isInside == true
          ? fence?.insideSince.map { " since \(UTCTime.format($0))" } ?? "" : ""),
      "  transitions",
    ]
    if transitions.isEmpty { lines.append("    (none)") }
    for transition in transitions {
      lines.append(
        "    \(UTCTime.format(transition.time))  \(transition.action.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))"
          + "\(transition.from.rawValue) → \(transition.to.rawValue)")
    }
    for line in lines { console.out(line) }
    return 0
  }
}
