import CommandLineSupport
import Foundation
import MissionTrackBenchmarks
import Testing

/// `missiontrack-bench`: choosing a benchmark, its manual, and small runs of the pipeline and
/// store benchmarks that must still print their one JSON object.
@Suite struct BenchmarkToolTests {
  func run(_ arguments: [String]) async -> (status: Int32, out: String, err: String) {
    let console = Console.capture()
    let status = await BenchmarkTool.run(arguments, console: console)
    return (status, console.capturedOutput, console.capturedError)
  }

  func object(_ output: String) throws -> [String: Any] {
    let lines = output.split(separator: "\n")
    #expect(lines.count == 1, "\(output)")
    let line = try #require(lines.first)
    return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
  }

  @Test func withoutANameOrWithAnUnknownOneItIsAUsageError() async {
    let none = await run([])
    #expect(none.status == 64)
    #expect(none.err == "missiontrack-bench: which benchmark? (see --help)\n")
    let unknown = await run(["nothing"])
    #expect(unknown.status == 64)
    #expect(unknown.err == "missiontrack-bench: unknown benchmark 'nothing' (see --help)\n")
  }

  @Test func helpListsEveryBenchmarkAndEachHasAManual() async {
    let overview = await run(["--help"])
    #expect(overview.status == 0)
    for name in ["parse", "pipeline", "store", "nearby", "replay"] {
      #expect(overview.out.contains("\n  \(name) "), "\(name) missing from the overview")
      let manual = await run([name, "--help"])
      #expect(manual.status == 0)
      #expect(manual.out.contains("missiontrack-bench \(name) - "))
    }
  }

  @Test func aBadOptionValueIsOneUsageLine() async {
    let result = await run(["pipeline", "--fixes", "0"])
    #expect(result.status == 64)
    #expect(result.err.hasPrefix("missiontrack-bench pipeline: "))
    #expect(result.err.split(separator: "\n").count == 1)
  }

  @Test func aReplayRunMeasuresEveryRowOnTheSameTrace() async throws {
    let walk = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Traces/demo/walk.gpx").path
    let result = await run(["replay", walk, "--repeat", "1"])
    #expect(result.status == 0, "\(result.err)")
    let json = try object(result.out)
    #expect(json["fixes"] as? Int == 1039)
    for row in ["parse", "pipeline", "memory", "database"] {
      #expect((json["\(row)_fixes_per_s"] as? Double ?? 0) > 0, "\(row)")
    }
    let missing = await run(["replay", "/nonexistent.gpx"])
    #expect(missing.status == 1)
    #expect(missing.err.split(separator: "\n").count == 1)
  }

  @Test func aSmallPipelineRunAgreesWithItsBaseline() async throws {
    let result = await run([
      "pipeline", "--fixes", "3000", "--missions", "20", "--repeat", "1", "--baseline-fixes",
      "3000",
    ])
    #expect(result.status == 0, "\(result.err)")
    let json = try object(result.out)
    #expect(json["fixes"] as? Int == 3000)
    #expect(json["agree"] as? Bool == true)
    #expect((json["delivered"] as? Int ?? 0) > 0)
    #expect(json["fixes_per_s"] != nil)
  }

  @Test func aSmallStoreRunStoresEveryFix() async throws {
    let result = await run([
      "store", "--fixes", "500", "--naive", "20", "--missions", "200", "--repeats", "1",
      "--synchronous", "normal",
    ])
    #expect(result.status == 0, "\(result.err)")
    let json = try object(result.out)
    #expect(json["fixes"] as? Int == 500)
    #expect(json["naive_fixes"] as? Int == 20)
    #expect(json["batched_fixes_per_s"] != nil)
  }
}
