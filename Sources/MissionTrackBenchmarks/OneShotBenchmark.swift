import CommandLineSupport
import Foundation
import MissionProximity
import MissionStore
import MissionTracking
import TextRules

/// `missiontrack-bench oneshot`: what a user waits for from one-shot commands on a large
/// database, measured on the built `missiontrack` processes end to end: `missions import`
/// of a big CSV, and `nearby` (answered from the database's cell index) beside the old way
/// of answering it (open, expire, read every mission into `proximityIndex()`, query).
enum OneShotBenchmark: Benchmark {
  static let name = "oneshot"
  static let summary = "CLI import and nearby processes on a large database, end to end"
  static let help = """
    NAME
      missiontrack-bench oneshot - measure one-shot commands as the user waits for them

    SYNOPSIS
      missiontrack-bench oneshot --missions M.csv --queries Q.csv [--tool PATH]
                                 [--imports N] [--runs N] [--grid-runs N]
                                 [--radius METRES] [--k K]

    DESCRIPTION
      Runs `missiontrack missions import M.csv` into a new database in a temporary
      directory --imports times (each into a fresh file) and times each process end to
      end. Then, on the imported database, runs `missiontrack nearby --json` for the first
      --runs points of Q.csv (an id,lat,lon CSV, as Tools/gen-missions writes), each a new
      process, and times them end to end, process start included. Beside it, the old way
      of answering, in this process: open the database, expire due missions, build the
      in-memory grid from every mission (`proximityIndex()`) and query it, --grid-runs
      times. Every nearby answer is checked against the grid (ids in order): "agree".
      Medians throughout; the ratio is the old way over the process (the old way is timed
      without a process start, so the ratio is a lower bound). Targets: nearby
      <= 50 ms per call on 1,000,000 missions, import <= 5 s.

      Prints one JSON object on standard output and a table on standard error.

    OPTIONS
      --missions PATH   Missions CSV (id,lat,lon, or any mission CSV).
      --queries PATH    Query points CSV (id,lat,lon).
      --tool PATH       The missiontrack executable (default: beside this one).
      --imports N       Import runs (default 3).
      --runs N          nearby processes (default 21).
      --grid-runs N     Runs of the old way (default 3).
      --radius METRES   nearby --radius (default 1000 when --k is not given).
      --k K             nearby --k.

    EXAMPLES
      Tools/gen-missions /tmp/nearby --distribution clustered
      swift build -c release
      .build/release/missiontrack-bench oneshot \\
        --missions /tmp/nearby/clustered-missions.csv \\
        --queries /tmp/nearby/clustered-queries.csv
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    guard let missionsPath = try arguments.option("--missions") else {
      throw CLIError.usage("--missions PATH is required")
    }
    guard let queriesPath = try arguments.option("--queries") else {
      throw CLIError.usage("--queries PATH is required")
    }
    let tool = try arguments.option("--tool") ?? defaultTool()
    let imports = try arguments.int("--imports", in: 1...100) ?? 3
    let runs = try arguments.int("--runs", in: 1...100_000) ?? 21
    let gridRuns = try arguments.int("--grid-runs", in: 1...100) ?? 3
    var radius = try arguments.double("--radius", in: 0...1e12)
    let k = try arguments.int("--k", in: 0...1_000_000)
    try arguments.finish()
    if radius == nil && k == nil { radius = 1000 }
    guard FileManager.default.isExecutableFile(atPath: tool) else {
      throw CLIError.failure("no missiontrack executable at \(tool): build it or pass --tool")
    }
    let queries = Array(try NearbyBenchmark.readPoints(queriesPath).prefix(runs))
    guard !queries.isEmpty else { throw CLIError.failure("\(queriesPath) holds no query") }

    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("missiontrack-bench-oneshot-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    // Import: each run into a fresh file; the last one is kept for the nearby runs.
    var importTimes: [Double] = []
    var importCPUTimes: [Double] = []
    var database = ""
    for index in 0..<imports {
      database = directory.appendingPathComponent("import-\(index).sqlite").path
      if index > 0 {
        let previous = directory.appendingPathComponent("import-\(index - 1).sqlite").path
        for suffix in ["", "-wal", "-shm"] { unlink(previous + suffix) }
      }
      let run = try spawn(tool, ["missions", "import", missionsPath, "--db", database])
      importTimes.append(run.wall)
      importCPUTimes.append(run.cpu)
    }
    let missionCount = try {
      let opened = try MissionDatabase(path: database)
      defer { try? opened.close() }
      return try opened.missionCount()
    }()

    // nearby, one process per query point.
    var nearbyTimes: [Double] = []
    var nearbyCPUTimes: [Double] = []
    var answers: [[String]] = []
    var results = 0
    for query in queries {
      var flags = [
        "nearby", "--lat", "\(query.coordinate.latitude)", "--lon",
        "\(query.coordinate.longitude)", "--json", "--db", database,
      ]
      if let radius { flags += ["--radius", "\(radius)"] }
      if let k { flags += ["--k", "\(k)"] }
      let run = try spawn(tool, flags)
      nearbyTimes.append(run.wall)
      nearbyCPUTimes.append(run.cpu)
      let ids = try run.output.split(separator: "\n").map { line -> String in
        guard
          let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
          let id = object["id"] as? String
        else { throw CLIError.failure("nearby printed a line without an id: \(line)") }
        return id
      }
      results += ids.count
      answers.append(ids)
    }

    // The old way: every mission into the grid, then one query, as the old command did.
    var gridTimes: [Double] = []
    var gridCPUTimes: [Double] = []
    var kept: SpatialGrid<MissionState>?
    let open: (MissionState) -> Bool = { $0 == .open }
    func answer(_ grid: SpatialGrid<MissionState>, _ point: Coordinate) throws -> [ProximityMatch] {
      if let k { return try grid.nearest(k, to: point, within: radius, where: open) }
      return try grid.missions(within: radius ?? 1000, of: point, where: open)
    }
    for round in 0..<gridRuns {
      let measured = try await BenchMeasure.time {
        let opened = try MissionDatabase(path: database)
        defer { try? opened.close() }
        try opened.expireDue()
        let grid = try opened.proximityIndex()
        _ = try answer(grid, queries[round % queries.count].coordinate)
        if round == 0 { kept = grid }
      }
      gridTimes.append(measured.wall)
      gridCPUTimes.append(measured.cpu)
    }
    var agree = kept != nil
    if let kept {
      for (index, point) in queries.enumerated()
      where try answer(kept, point.coordinate).map(\.id) != answers[index] {
        agree = false
      }
    }

    let importMedian = BenchMeasure.median(importTimes)
    let nearbyMedian = BenchMeasure.median(nearbyTimes)
    let gridMedian = BenchMeasure.median(gridTimes)
    var json = JSONObjectWriter()
    json.add("benchmark", name)
    json.add("missions", missionCount)
    json.add("load_average_1m", NearbyBenchmark.loadAverage())
    json.add("imports", imports)
    json.add("import_s", importMedian)
    json.add("import_cpu_s", BenchMeasure.median(importCPUTimes))
    json.add("import_target_s", 5.0)
    json.add("nearby_runs", nearbyTimes.count)
    json.add("nearby_process_s", nearbyMedian)
    json.add("nearby_process_cpu_s", BenchMeasure.median(nearbyCPUTimes))
    json.add("nearby_target_s", 0.05)
    json.add("nearby_results", results)
    json.add("grid_runs", gridTimes.count)
    json.add("grid_open_build_query_s", gridMedian)
    json.add("grid_open_build_query_cpu_s", BenchMeasure.median(gridCPUTimes))
    json.add("speedup", gridMedian / nearbyMedian)
    json.add("agree", agree)
    let what =
      k.map { "k \($0)" + (radius.map { " within \(Int($0)) m" } ?? "") }
      ?? "radius \(Int(radius ?? 1000)) m"
    console.err(
      "one-shot commands, \(missionCount) missions, load \(NearbyBenchmark.fixed(NearbyBenchmark.loadAverage(), 1)):"
    )
    console.err("  what                                   median      CPU  runs")
    console.err(
      row("missions import (process)", importMedian, BenchMeasure.median(importCPUTimes), imports)
        + "   target 5 s")
    console.err(
      row(
        "nearby \(what) (process)", nearbyMedian, BenchMeasure.median(nearbyCPUTimes),
        nearbyTimes.count)
        + "   target 0.05 s")
    console.err(
      row(
        "old: open + grid + query", gridMedian, BenchMeasure.median(gridCPUTimes), gridTimes.count))
    console.err(
      "  ratio old / process: \(NearbyBenchmark.fixed(gridMedian / nearbyMedian, 1))x, "
        + "answers agree: \(agree)")
    console.out(json.result)
    return agree ? 0 : 1
  }

  /// One table row: what, median and CPU seconds, runs.
  private static func row(_ what: String, _ wall: Double, _ cpu: Double, _ runs: Int) -> String {
    let padded = what.padding(toLength: 36, withPad: " ", startingAt: 0)
    return
      "  \(padded) \(String(format: "%7.3f s %7.3f s", wall, cpu)) \(String(format: "%5d", runs))"
  }

  /// `missiontrack` in the directory of this executable.
  private static func defaultTool() -> String {
    let me = URL(fileURLWithPath: CommandLine.arguments.first ?? "missiontrack-bench")
    return me.deletingLastPathComponent().appendingPathComponent("missiontrack").path
  }

  /// Runs `tool` with `arguments` to its end: wall seconds from launch to exit, the child's
  /// CPU seconds, and its standard output. A non-zero exit fails with its standard error.
  private static func spawn(_ tool: String, _ arguments: [String]) throws
    -> (wall: Double, cpu: Double, output: String)
  {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let cpuBefore = childCPUSeconds()
    let start = ContinuousClock.now
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let complaint = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let wall = NearbyBenchmark.seconds(since: start)
    guard process.terminationStatus == 0 else {
      throw CLIError.failure(
        "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus): "
          + String(decoding: complaint, as: UTF8.self))
    }
    return (wall, childCPUSeconds() - cpuBefore, String(decoding: printed, as: UTF8.self))
  }

  /// User plus system CPU seconds of the waited-for children so far.
  private static func childCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
      + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
  }
}
