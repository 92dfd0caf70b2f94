import CommandLineSupport
import MissionTracking

/// `missiontrack missions`: import, list and show missions and move them through their
/// lifecycle. A group: each sub-command has its own manual.
enum MissionsCommand: Command {
  static let name = "missions"
  static let summary = "Import, list and show missions; accept, start, submit, complete, cancel"
  static let handlesHelp = true

  /// The sub-commands with their own type, by the word that selects them.
  static let subcommands: [any Command.Type] = [
    MissionsImportCommand.self,
    MissionsListCommand.self,
    MissionsShowCommand.self,
  ]

  static var help: String {
    var text = """
      NAME
        missiontrack missions - manage the missions in the database

      SYNOPSIS
        missiontrack missions SUBCOMMAND [OPTIONS] [--db PATH|URI]

      DESCRIPTION
        Missions are paid field jobs at a place, each with a circular geofence. They live in
        the database given by --db: an SQLite file (default missiontrack.sqlite in the
        working directory) or a PostgreSQL URI (postgresql://USER@HOST:PORT/DB). Lifecycle: open → accepted → active → arrived → submitted → completed,
        plus cancelled (from open, accepted, active, arrived) and expired (from open,
        accepted). arrived is reached automatically by tracking (replay, track).

      SUBCOMMANDS

      """
    for sub in subcommands {
      text += "  \(sub.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(sub.summary)\n"
    }
    for action in MissionsActionCommand.actions {
      let word = action.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)
      text += "  \(word)\(MissionsActionCommand.summary(of: action))\n"
    }
    text += """

      Run 'missiontrack missions SUBCOMMAND --help' for its manual.

      EXAMPLES
        missiontrack missions import Traces/demo/missions.geojson
        missiontrack missions list --state open
        missiontrack missions accept sig-101
        missiontrack missions show sig-101

      """
    return text
  }

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    guard let word = try arguments.positionalsPrefix(1).first else {
      if arguments.wantsHelp() {
        console.out(help)
        return 0
      }
      throw CLIError.usage("which sub-command? (import, list, show, accept, start, …; see --help)")
    }
    if let sub = subcommands.first(where: { $0.name == word }) {
      if arguments.wantsHelp() {
        console.out(sub.help)
        return 0
      }
      return try await sub.run(&arguments, console: console)
    }
    if let action = MissionsActionCommand.actions.first(where: { $0.rawValue == word }) {
      if arguments.wantsHelp() {
        console.out(MissionsActionCommand.help(for: action))
        return 0
      }
      return try await MissionsActionCommand.run(action, &arguments, console: console)
    }
    throw CLIError.usage("unknown sub-command '\(word)' (see 'missiontrack missions --help')")
  }
}
