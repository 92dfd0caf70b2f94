/// `missiontrack bench`: release-mode benchmarks, each comparing against a naive baseline in
/// the same run and printing one JSON object.
enum BenchCommand: Command {
  static let name = "bench"
  static let summary = "Run a benchmark (build with -c release)"

  /// Each benchmark is a `Command` whose name is the word after `bench`.
  static let benchmarks: [any Command.Type] = [
    ParseBenchmark.self,
    PipelineBenchmark.self,
    StoreBenchmark.self,
    NearbyBenchmark.self,
  ]

  static let handlesHelp = true

  static var help: String {
    var text = """
      NAME
        missiontrack bench - measure MissionTrack against a naive baseline

      SYNOPSIS
        missiontrack bench BENCHMARK [OPTIONS]

      DESCRIPTION
        Each benchmark prints one JSON object on standard output with its figures and a
        naive baseline measured in the same run. Build in release mode first:
        swift build -c release. Medians over repeats are reported; the machine is shared.

      BENCHMARKS

      """
    for bench in benchmarks {
      text += "  \(bench.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(bench.summary)\n"
    }
    if benchmarks.isEmpty { text += "  (none built yet)\n" }
    return text
  }

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let words = try arguments.positionalsPrefix(1)
    guard let word = words.first else {
      if arguments.wantsHelp() {
        console.out(help)
        return 0
      }
      throw CLIError.usage("which benchmark? (see --help)")
    }
    guard let bench = benchmarks.first(where: { $0.name == word }) else {
      throw CLIError.usage("unknown benchmark '\(word)'")
    }
    if arguments.wantsHelp() {
      console.out(bench.help)
      return 0
    }
    return try await bench.run(&arguments, console: console)
  }
}
