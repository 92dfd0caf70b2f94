import CommandLineSupport

/// One benchmark of `missiontrack-bench`: its name, its manual page and what it measures.
protocol Benchmark: SendableMetatype {
  /// The word that selects it, e.g. `"pipeline"`.
  static var name: String { get }
  /// One line for the benchmark list.
  static var summary: String { get }
  /// The full `--help` text: synopsis, description, options, examples.
  static var help: String { get }
  /// Runs the benchmark on the arguments after its name.
  /// - Returns: The exit status (0 on success).
  /// - Throws: `CLIError` (or any error, reported as a runtime failure).
  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32
}
