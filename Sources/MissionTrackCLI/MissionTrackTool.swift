/// The `missiontrack` command-line tool: finds the subcommand and runs it.
import CommandLineSupport

package enum MissionTrackTool {
  /// The version `--version` prints.
  package static let version = "0.1.0"

  /// Every subcommand, in the order `--help` lists them.
  static let commands: [any Command.Type] = [
    MissionsCommand.self,
    WorkersCommand.self,
    NearbyCommand.self,
    ReplayCommand.self,
    TrackCommand.self,
    ServeCommand.self,
    WebhooksCommand.self,
    DecodeCommand.self,
    ExportCommand.self,
    ReportCommand.self,
    DistanceCommand.self,
    TraceCommand.self,
  ]

  /// Runs the tool on `arguments` (without the program name) and returns the exit status:
  /// 0 on success, 1 on a runtime error, 64 on a usage error. Errors are one line on
  /// standard error.
  ///
  /// A failed write to standard output or standard error (a full disk, a closed pipe with
  /// SIGPIPE ignored) makes the status 1, with one line on standard error when that still
  /// works. With a real (not capturing) console, SIGINT and SIGTERM flush standard output
  /// before the process dies of them, unless the command awaits them to stop cleanly.
  package static func run(_ arguments: [String], console: Console = .standard()) async -> Int32 {
    if !console.isCapturing { TerminationSignal.flushOnTermination(console) }
    let status = await dispatch(arguments, console: console)
    console.flush()
    if let failure = console.outputFailure {
      let name = arguments.first.flatMap { word in commands.first { $0.name == word }?.name }
      console.err("missiontrack\(name.map { " " + $0 } ?? ""): \(failure.message)")
      return 1
    }
    return console.errorFailure == nil ? status : 1
  }

  /// Finds the command and runs it; errors become one line on standard error.
  private static func dispatch(_ arguments: [String], console: Console) async -> Int32 {
    guard let first = arguments.first else {
      console.err(overview)
      return 64
    }
    if first == "--help" || first == "-h" || first == "help" {
      console.out(overview)
      return 0
    }
    if first == "--version" {
      console.out("missiontrack \(version)")
      return 0
    }
    guard let command = commands.first(where: { $0.name == first }) else {
      console.err(
        "missiontrack: unknown command '\(first.terminalSafe)' (see 'missiontrack --help')")
      return 64
    }
    var rest = ArgumentList(Array(arguments.dropFirst()))
    if !command.handlesHelp && rest.wantsHelp() {
      console.out(command.help)
      return 0
    }
    do {
      return try await command.run(&rest, console: console)
    } catch let error as CLIError {
      console.err("missiontrack \(command.name): \(error.message.terminalSafe)")
      return error.exitStatus
    } catch {
      console.err("missiontrack \(command.name): \(String(describing: error).terminalSafe)")
      return 1
    }
  }

  static var overview: String {
    var text = """
      missiontrack \(version): mission geofencing, live tracking and proximity queries

      USAGE: missiontrack COMMAND [OPTIONS]

      COMMANDS:

      """
    for command in commands {
      let padded = command.name.padding(toLength: 12, withPad: " ", startingAt: 0)
      text += "  \(padded)\(command.summary)\n"
    }
    text += """

      Run 'missiontrack COMMAND --help' for a command's manual.
      Units: metres, seconds, degrees (WGS-84), UTC. Flags are latitude first.
      Exit status: 0 success, 1 runtime error, 64 usage error.
      """
    return text
  }
}
