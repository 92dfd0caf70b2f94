import CommandLineSupport
import Foundation
import MissionStore
import MissionTracking
import TextRules
import TraceFormats

/// `missiontrack-bench replay`: what a replay costs end to end, beside its parts, on one
/// trace in the same run.
enum ReplayBenchmark: Benchmark {
  static let name = "replay"
  static let summary = "Replay end to end (CLI, file database, in memory) beside its parts"
  static let help = """
    NAME
      missiontrack-bench replay - measure a replay end to end and by part

    SYNOPSIS
      missiontrack-bench replay TRACE [--repeat R] [--rows ROW,...]

    DESCRIPTION
      Places one mission at the trace's first fix and measures, R times each (medians):
        parse      the trace read and decoded (TraceReader), nothing else;
        pipeline   the decoded fixes through TrackingPipeline (clean, fence, filter);
        memory     TraceReplay.run: the engine with an in-memory store, as a test suite
                   uses it;
        database   the engine recording into a fresh SQLite file (FULL sync, group
                   commit) with every event encoded as a JSON line (and dropped), as
                   'missiontrack replay' does;
        cli        the built 'missiontrack replay TRACE --db FILE' as a process, stdout
                   to /dev/null: what a user waits for (skipped when the binary is not
                   next to this one).
      Rates are fixes read per second of wall time and per CPU-second (this process and
      its children), on a machine that may be shared.

      Prints one JSON object on standard output (fixes, and per row its wall and CPU
      seconds and rates); a table goes to standard error.

    OPTIONS
      TRACE         A GPX, NMEA or gpsd-JSON trace (e.g. Tools/gen-gpx --points 1000000).
      --repeat R    Repeats per row; the median is reported (default 3).
      --rows ROWS   Only these rows, comma-separated (parse, pipeline, memory, database,
                    cli), e.g. '--rows memory' under a profiler (default: all).

    EXAMPLES
      Tools/gen-gpx --points 1000000 --out /tmp/track-1m.gpx
      swift run -c release missiontrack-bench replay /tmp/track-1m.gpx
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let repeats = try arguments.int("--repeat", in: 1...100) ?? 3
    let allRows = ["parse", "pipeline", "memory", "database", "cli"]
    var selected = Set(allRows)
    if let list = try arguments.option("--rows") {
      selected = Set(list.split(separator: ",").map { String($0) })
      if let unknown = selected.subtracting(allRows).sorted().first {
        throw CLIError.usage(
          "--rows: no row '\(unknown)' (rows: \(allRows.joined(separator: ", ")))")
      }
    }
    let paths = try arguments.positionals()
    guard paths.count == 1, let path = paths.first else {
      throw CLIError.usage("which TRACE? (one path)")
    }
    var fixes: [Fix] = []
    do {
      let reader = try TraceReader(path: path)
      var chunk: [Fix] = []
      while try reader.read(into: &chunk) {
        fixes.append(contentsOf: chunk)
        chunk.removeAll(keepingCapacity: true)
      }
      fixes.append(contentsOf: chunk)
    } catch {
      throw CLIError.failure("\(error)")
    }
    guard let first = fixes.first(where: { FixCleaner.invalidity(of: $0) == nil }) else {
      throw CLIError.failure("\(path): no fix to replay")
    }
    let mission = Mission(id: "bench", coordinate: first.coordinate, state: .accepted)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("replay-bench-\(getpid())")
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    var rows: [(name: String, wall: Double, cpu: Double)] = []
    func measure(_ name: String, _ body: (Int) async throws -> Void) async throws {
      guard selected.contains(name) else { return }
      var walls: [Double] = []
      var cpus: [Double] = []
      for round in 0..<repeats {
        let (wall, cpu) = try await BenchMeasure.time { try await body(round) }
        walls.append(wall)
        cpus.append(cpu)
      }
      rows.append((name, BenchMeasure.median(walls), BenchMeasure.median(cpus)))
    }

    try await measure("parse") { _ in
      let reader = try TraceReader(path: path)
      var chunk: [Fix] = []
      var count = 0
      while try reader.read(into: &chunk) {
        count += chunk.count
        chunk.removeAll(keepingCapacity: true)
      }
      if count < 0 { console.err("impossible") }
    }
    try await measure("pipeline") { _ in
      var pipeline = TrackingPipeline(mission: mission)
      var events: [TrackingEvent] = []
      for fix in fixes {
        pipeline.process(fix, into: &events)
        events.removeAll(keepingCapacity: true)
      }
    }
    try await measure("memory") { _ in
      _ = try await TraceReplay.run(path: path, mission: mission)
    }
    try await measure("database") { round in
      let database = try MissionDatabase(
        path: directory.appendingPathComponent("db\(round).sqlite").path)
      try database.insert([mission])
      let engine = MissionEngine(
        store: database, source: TraceReplaySource(path: path), clock: ManualClock(first.time))
      let printer = Task {
        var bytes = 0
        for await event in engine.events { bytes &+= event.jsonLine.utf8.count + 1 }
        return bytes
      }
      try await engine.open()
      try await engine.perform(.start, on: mission.id)
      _ = await engine.waitUntilTrackingEnds()
      await engine.shutdown()
      _ = await printer.value
      try database.close()
    }
    let tool = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("missiontrack")
    if FileManager.default.isExecutableFile(atPath: tool.path) {
      try await measure("cli") { round in
        let db = directory.appendingPathComponent("cli\(round).sqlite").path
        let importer = try MissionDatabase(path: db)
        try importer.insert([mission])
        try importer.close()
        let process = Process()
        process.executableURL = tool
        process.arguments = ["replay", path, "--mission", mission.id, "--db", db]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
          throw CLIError.failure("missiontrack replay exited \(process.terminationStatus)")
        }
      }
    }

    var json = JSONObjectWriter()
    json.add("fixes", fixes.count)
    json.add("repeats", repeats)
    func pad(_ text: String, _ width: Int) -> String {
      String(repeating: " ", count: max(0, width - text.count)) + text
    }
    var table = "row      " + pad("fixes/s", 13) + pad("fixes/CPU-s", 13) + pad("wall s", 10) + "\n"
    for row in rows {
      let perWall = Double(fixes.count) / row.wall
      let perCPU = Double(fixes.count) / row.cpu
      json.add("\(row.name)_wall_seconds", row.wall)
      json.add("\(row.name)_cpu_seconds", row.cpu)
      json.add("\(row.name)_fixes_per_s", perWall.rounded())
      json.add("\(row.name)_fixes_per_cpu_s", perCPU.rounded())
      table +=
        row.name.padding(toLength: 9, withPad: " ", startingAt: 0)
        + pad(String(format: "%.0f", perWall), 13) + pad(String(format: "%.0f", perCPU), 13)
        + pad(String(format: "%.2f", row.wall), 10) + "\n"
    }
    console.out(json.result)
    console.err(table.trimmingCharacters(in: .newlines))
    return 0
  }
}
