/// `missiontrack trace`: tools that work on recorded traces themselves. A group: each
/// sub-command has its own manual.
import CommandLineSupport

enum TraceCommand: Command {
  static let name = "trace"
  static let summary = "Work on trace files: inject faults (mutate)"
  static let handlesHelp = true

  /// The sub-commands, by the word that selects them.
  static let subcommands: [any Command.Type] = [
    TraceMutateCommand.self
  ]

  static var help: String {
    var text = """
      NAME
        missiontrack trace - work on recorded GPX / NMEA / gpsd-JSON traces

      SYNOPSIS
        missiontrack trace SUBCOMMAND [OPTIONS]

      SUBCOMMANDS

      """
    for sub in subcommands {
      text += "  \(sub.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(sub.summary)\n"
    }
    text += """

      Run 'missiontrack trace SUBCOMMAND --help' for its manual.
      """
    return text
  }

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    guard let word = try arguments.positionalsPrefix(1).first else {
      if arguments.wantsHelp() {
        console.out(help)
        return 0
      }
      throw CLIError.usage("which sub-command? (mutate; see --help)")
    }
    guard let sub = subcommands.first(where: { $0.name == word }) else {
      throw CLIError.usage("unknown sub-command '\(word)' (see 'missiontrack trace --help')")
    }
    if arguments.wantsHelp() {
      console.out(sub.help)
      return 0
    }
    return try await sub.run(&arguments, console: console)
  }
}
