import CommandLineSupport

/// `missiontrack-bench`: release-mode benchmarks, each comparing against a naive baseline in
/// the same run and printing one JSON object. A separate executable, so the shipped
/// `missiontrack` carries none of it.
package enum BenchmarkTool {
  /// Every benchmark, in the order `--help` lists them.
  static let benchmarks: [any Benchmark.Type] = [
    ParseBenchmark.self,
    PipelineBenchmark.self,
    StoreBenchmark.self,
    NearbyBenchmark.self,
    ReplayBenchmark.self,
    OneShotBenchmark.self,
    FleetBenchmark.self,
    PostgresImportBenchmark.self,
    IngestDecodeBenchmark.self,
  ]

  /// The overview `--help` prints.
  static var help: String {
    var text = """
      NAME
        missiontrack-bench - measure MissionTrack against a naive baseline

      SYNOPSIS
        missiontrack-bench BENCHMARK [OPTIONS]
        swift run -c release missiontrack-bench BENCHMARK [OPTIONS]

      DESCRIPTION
        Each benchmark prints one JSON object on standard output with its figures and a
        naive baseline measured in the same run (a short table goes to standard error).
        Build in release mode: a debug build is ten times slower and says so on standard
        error. Medians over repeats are reported; the machine may be shared.

      BENCHMARKS

      """
    for bench in benchmarks {
      text += "  \(bench.name.padding(toLength: 10, withPad: " ", startingAt: 0))\(bench.summary)\n"
    }
    text += """

      Run 'missiontrack-bench BENCHMARK --help' for a benchmark's manual.
      Exit status: 0 success, 1 runtime error, 64 usage error.
      """
    return text
  }

  /// Runs the benchmark named by the first argument and returns the exit status: 0 on
  /// success, 1 on a runtime error, 64 on a usage error. Errors are one line on standard
  /// error.
  ///
  /// - Parameters:
  ///   - arguments: The command line without the program name.
  ///   - console: Where the JSON object, the table and errors go.
  package static func run(_ arguments: [String], console: Console = .standard()) async -> Int32 {
    defer { console.flush() }
    guard let word = arguments.first else {
      console.err("missiontrack-bench: which benchmark? (see --help)")
      return 64
    }
    if word == "--help" || word == "-h" || word == "help" {
      console.out(help)
      return 0
    }
    guard let bench = benchmarks.first(where: { $0.name == word }) else {
      console.err("missiontrack-bench: unknown benchmark '\(word)' (see --help)")
      return 64
    }
    var rest = ArgumentList(Array(arguments.dropFirst()))
    if rest.wantsHelp() {
      console.out(bench.help)
      return 0
    }
    do {
      return try await bench.run(&rest, console: console)
    } catch let error as CLIError {
      console.err("missiontrack-bench \(bench.name): \(error.message)")
      return error.exitStatus
    } catch {
      console.err("missiontrack-bench \(bench.name): \(error)")
      return 1
    }
  }
}
