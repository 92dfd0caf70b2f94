import CommandLineSupport
import Foundation
import Testing

@testable import MissionTrackCLI

/// The tool's front door, run in process with a capturing console.
@Suite struct MissionTrackToolTests {
  func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
    let console = Console.capture()
    let status = await MissionTrackTool.run(arguments, console: console)
    return (status, console.capturedOutput, console.capturedError)
  }

  @Test func versionPrintsTheVersionOnStandardOutput() async {
    let result = await run(["--version"])
    #expect(result.status == 0)
    #expect(result.out == "missiontrack \(MissionTrackTool.version)\n")
    #expect(result.err.isEmpty)
  }

  @Test func helpListsEveryCommand() async {
    for spelling in ["--help", "-h", "help"] {
      let result = await run([spelling])
      #expect(result.status == 0)
      #expect(result.out.contains("USAGE: missiontrack COMMAND"))
      for command in MissionTrackTool.commands {
        #expect(result.out.contains("  \(command.name)"))
      }
    }
  }

  @Test func noArgumentsPrintsTheOverviewOnStandardErrorAsAUsageError() async {
    let result = await run([])
    #expect(result.status == 64)
    #expect(result.out.isEmpty)
    #expect(result.err.contains("USAGE: missiontrack COMMAND"))
  }

  @Test func anUnknownCommandIsAUsageError() async {
    let result = await run(["frobnicate", "--x"])
    #expect(result.status == 64)
    #expect(result.out.isEmpty)
    #expect(
      result.err == "missiontrack: unknown command 'frobnicate' (see 'missiontrack --help')\n")
  }

  @Test func everyCommandHasAManualPage() async {
    for command in MissionTrackTool.commands {
      let result = await run([command.name, "--help"])
      #expect(result.status == 0)
      #expect(result.out.contains("NAME"))
      #expect(result.out.contains("SYNOPSIS"))
    }
  }

  @Test func distancePrintsMetresAndBearing() async {
    let result = await run(["distance", "--from", "59.3293,18.0686", "--to", "57.7089,11.9746"])
    #expect(result.status == 0)
    #expect(result.err.isEmpty)
    // Stockholm to Gothenburg: about 398 km on the sphere, heading west-south-west.
    #expect(
      result.out.range(of: #"^39\d\.\d km at bearing 2\d\d\.\d°\n$"#, options: .regularExpression)
        != nil, "\(result.out)")
    let short = await run(["distance", "--from=0,0", "--to=0,0.001"])
    #expect(short.out == "111 m at bearing 90.0°\n")
  }

  @Test func distanceJSONIsOneObject() async throws {
    let result = await run(["distance", "--json", "--from", "-33.9,151.2", "--to", "-33.9,-179.9"])
    #expect(result.status == 0)
    let lines = result.out.split(separator: "\n")
    try #require(lines.count == 1)
    let object = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Double]
    let meters = try #require(object?["distance_m"])
    let bearing = try #require(object?["bearing_deg"])
    // Across the antimeridian: 2,658 km east, not the long way round.
    #expect(abs(meters - 2_658_332.6) < 1)
    #expect(bearing > 60 && bearing < 120)
  }

  @Test(arguments: [
    (["distance"], "missiontrack distance: --from LAT,LON is required\n"),
    (["distance", "--from", "1,2"], "missiontrack distance: --to LAT,LON is required\n"),
    (["distance", "--from", "1,2", "--to"], "missiontrack distance: --to needs a value\n"),
    (
      ["distance", "--from", "1;2", "--to", "3,4"],
      "missiontrack distance: --from expects LAT,LON in degrees, got '1;2'\n"
    ),
    (
      ["distance", "--from", "1,2", "--to", "3,4", "--miles"],
      "missiontrack distance: unknown option '--miles'\n"
    ),
    (
      ["distance", "--from", "1,2", "--to", "3,4", "extra"],
      "missiontrack distance: unexpected argument 'extra'\n"
    ),
  ])
  func distanceUsageErrorsAreOneLineAndExit64(arguments: [String], message: String) async {
    let result = await run(arguments)
    #expect(result.status == 64)
    #expect(result.out.isEmpty)
    #expect(result.err == message)
  }

  @Test func distanceRejectsOutOfRangeCoordinatesAsUsage() async {
    let result = await run(["distance", "--from", "91,0", "--to", "0,0"])
    #expect(result.status == 64)
    #expect(result.err.hasPrefix("missiontrack distance: --from: "))
    #expect(result.err.contains("91"))
    #expect(result.err.split(separator: "\n").count == 1)
    let nan = await run(["distance", "--from", "0,0", "--to", "nan,0"])
    #expect(nan.status == 64)
  }

  @Test func benchmarksAreNotPartOfTheShippedTool() async {
    let result = await run(["bench", "pipeline"])
    #expect(result.status == 64)
    #expect(result.err == "missiontrack: unknown command 'bench' (see 'missiontrack --help')\n")
    let overview = await run(["--help"])
    #expect(!overview.out.contains("bench"))
  }
}
