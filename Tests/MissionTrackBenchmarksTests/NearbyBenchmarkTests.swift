import CommandLineSupport
import Foundation
import MissionTrackBenchmarks
import Testing

/// `missiontrack-bench nearby` end to end on small files.
@Suite struct NearbyBenchmarkTests {
  private func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("nearby-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  private func write(_ lines: [String], to url: URL) throws {
    try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
  }

  private func files() throws -> (missions: String, queries: String) {
    let directory = try temporaryDirectory()
    var missions = ["id,lat,lon"]
    for index in 0..<400 {
      let lat = -89.5 + Double(index * 37 % 179)
      let lon = -179.5 + Double(index * 53 % 359)
      missions.append("m\(index),\(lat),\(lon)")
    }
    missions.append("pole,90,0")
    missions.append("edge,0,180")
    let queries = ["id,lat,lon", "q0,0,-180", "q1,90,45", "q2,10.5,20.5", "q3,-89.5,-179.5"]
    let missionsURL = directory.appendingPathComponent("m.csv")
    let queriesURL = directory.appendingPathComponent("q.csv")
    try write(missions, to: missionsURL)
    try write(queries, to: queriesURL)
    return (missionsURL.path, queriesURL.path)
  }

  @Test(arguments: [["--k", "7"], ["--radius", "2500000"], ["--k", "3", "--radius", "500000"]])
  func printsOneJSONObjectThatAgreesWithTheScan(_ query: [String]) async throws {
    let (missions, queries) = try files()
    let console = Console.capture()
    let status = await BenchmarkTool.run(
      ["nearby", "--missions", missions, "--queries", queries, "--repeat", "1"]
        + query, console: console)
    #expect(status == 0, "\(console.capturedError)")
    let lines = console.capturedOutput.split(separator: "\n")
    #expect(lines.count == 1)
    let object = try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any]
    #expect(object?["missions"] as? Int == 402)
    #expect(object?["queries"] as? Int == 4)
    #expect(object?["baseline_queries"] as? Int == 4)
    #expect(object?["agree"] as? Bool == true)
    for key in [
      "build_s", "query_s", "queries_per_s", "results", "index_bytes", "peak_rss_mb",
      "baseline_queries_per_s", "speedup",
    ] {
      #expect(object?[key] != nil, "missing \(key)")
    }
  }

  @Test func aMissingQueryKindIsAUsageError() async throws {
    let (missions, queries) = try files()
    let console = Console.capture()
    let status = await BenchmarkTool.run(
      ["nearby", "--missions", missions, "--queries", queries], console: console)
    #expect(status == 64)
    #expect(console.capturedError.contains("--radius or --k"))
  }

  @Test func aBadLineIsReportedWithItsNumber() async throws {
    let directory = try temporaryDirectory()
    let bad = directory.appendingPathComponent("bad.csv")
    try write(["id,lat,lon", "a,1,2", "b,91,2"], to: bad)
    let console = Console.capture()
    let status = await BenchmarkTool.run(
      ["nearby", "--missions", bad.path, "--queries", bad.path, "--k", "1"],
      console: console)
    #expect(status == 1)
    #expect(console.capturedError.contains("bad.csv:3"))
  }
}
