/// One `missiontrack` subcommand: its name, its manual page and what it does.
import CommandLineSupport

protocol Command: SendableMetatype {
  /// The word that selects it, e.g. `"nearby"`.
  static var name: String { get }
  /// One line for the command list.
  static var summary: String { get }
  /// The full `--help` text: synopsis, description, options, examples.
  static var help: String { get }
  /// Whether the command reads `--help` itself (a group such as `bench` whose sub-commands
  /// each have a manual). Defaults to false: the tool prints `help` for it.
  static var handlesHelp: Bool { get }
  /// Runs the command on the arguments after its name.
  /// - Returns: The exit status (0 on success).
  /// - Throws: `CLIError` (or any error, reported as a runtime failure).
  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32
}

extension Command {
  static var handlesHelp: Bool { false }
}
