import CommandLineSupport
import Foundation
import MissionStore
import MissionTracking
import TextRules

/// `missiontrack-bench store`: fix ingest through the group-committed recorder against one
/// transaction per fix, and the time to open a database of many missions and read them back
/// for the proximity index.
enum StoreBenchmark: Benchmark {
  static let name = "store"
  static let summary = "SQLite ingest (group commit vs per-fix) and bulk mission read"
  static let help = """
    NAME
      missiontrack-bench store - measure the SQLite store

    SYNOPSIS
      missiontrack-bench store [--fixes N] [--naive N] [--missions N] [--repeats N]
                               [--batch N] [--synchronous full|normal]

    DESCRIPTION
      Records N fix events of one active mission through the recorder (group commit:
      --batch events per transaction) and, in the same run, a smaller sample with one
      transaction per fix (the naive baseline). Each fix is stored in the track and its
      JSON line in the events table. Then stores --missions missions, and times opening
      the database and reading every (id, coordinate, state) for the proximity index, and
      opening it, reading them and building the proximity index (`SpatialGrid`), the
      start-up path (target: 2 s for 1,000,000 missions).
      Everything happens in a temporary directory that is removed afterwards. Prints one
      JSON object on stdout (medians over --repeats) and a table on stderr.

    OPTIONS
      --fixes N          Fixes through the batched path (default 1000000).
      --naive N          Fixes through the per-fix baseline (default 5000).
      --missions N       Missions for the bulk read (default 1000000; 0 skips it).
      --repeats N        Repeats per measurement, the median is reported (default 3).
      --batch N          Events per commit (default 2000).
      --synchronous M    full (default: survives power loss) or normal.

    EXAMPLES
      swift run -c release missiontrack-bench store
      missiontrack-bench store --synchronous normal --missions 0
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let fixes = try arguments.int("--fixes", in: 1...100_000_000) ?? 1_000_000
    let naive = try arguments.int("--naive", in: 1...10_000_000) ?? 5000
    let missions = try arguments.int("--missions", in: 0...100_000_000) ?? 1_000_000
    let repeats = try arguments.int("--repeats", in: 1...100) ?? 3
    let batch = try arguments.int("--batch", in: 1...10_000_000) ?? 2000
    let syncText = try arguments.option("--synchronous") ?? "full"
    guard let synchronous = StoreConfiguration.Synchronous(rawValue: syncText.uppercased()) else {
      throw CLIError.usage("--synchronous expects full or normal, got '\(syncText)'")
    }
    try arguments.finish()

    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("missiontrack-bench-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    let events = makeFixEvents(count: max(fixes, naive))
    let load = loadAverage()
    // The part of each fix's cost that is encoding its JSON line (paid by any sink).
    var totalBytes = 0
    let encoding = try measureWallAndCPU {
      for event in events.prefix(fixes) { totalBytes &+= event.jsonLine.utf8.count }
    }
    var batchedRates: [Double] = []
    var batchedCPURates: [Double] = []
    var readCPURates: [Double] = []
    var naiveRates: [Double] = []
    var naiveCPURates: [Double] = []
    for round in 0..<repeats {
      let batched = try ingest(
        events.prefix(fixes), directory: directory, name: "batched-\(round)",
        configuration: StoreConfiguration(
          synchronous: synchronous,
          groupCommit: GroupCommitPolicy(maxEvents: batch, maxDelay: .milliseconds(200))))
      batchedRates.append(Double(fixes) / batched.wall)
      batchedCPURates.append(Double(fixes) / batched.cpu)
      readCPURates.append(Double(fixes) / batched.readCPU)
      let perFix = try ingest(
        events.prefix(naive), directory: directory, name: "naive-\(round)",
        configuration: StoreConfiguration(synchronous: synchronous, groupCommit: .immediate))
      naiveRates.append(Double(naive) / perFix.wall)
      naiveCPURates.append(Double(naive) / perFix.cpu)
    }
    let batchedRate = BenchMeasure.median(batchedRates)
    let naiveRate = BenchMeasure.median(naiveRates)

    var json = JSONObjectWriter()
    json.add("benchmark", "store")
    json.add("synchronous", synchronous.rawValue.lowercased())
    json.add("batch_events", batch)
    json.add("repeats", repeats)
    json.add("load_average_1m", load)
    json.add("fixes", fixes)
    json.add("batched_fixes_per_s", batchedRate.rounded())
    json.add("batched_fixes_per_cpu_s", BenchMeasure.median(batchedCPURates).rounded())
    json.add("naive_fixes", naive)
    json.add("naive_fixes_per_s", naiveRate.rounded())
    json.add("naive_fixes_per_cpu_s", BenchMeasure.median(naiveCPURates).rounded())
    json.add("speedup", batchedRate / naiveRate)
    json.add("json_lines_per_cpu_s", (Double(fixes) / encoding.cpu).rounded())
    json.add("event_lines_read_per_cpu_s", BenchMeasure.median(readCPURates).rounded())
    console.err(
      "store ingest (synchronous \(synchronous.rawValue), median of \(repeats), load \(load)):")
    console.err(
      "  batched (\(batch)/commit): \(Int(batchedRate)) fixes/s wall, "
        + "\(Int(BenchMeasure.median(batchedCPURates))) per CPU-second, over \(fixes) fixes")
    console.err(
      "  naive (1/commit):      \(Int(naiveRate)) fixes/s wall, "
        + "\(Int(BenchMeasure.median(naiveCPURates))) per CPU-second, over \(naive) fixes")
    console.err("  speedup: \(String(format: "%.1f", batchedRate / naiveRate))x")
    console.err(
      "  reading the event lines back: \(Int(BenchMeasure.median(readCPURates))) per CPU-second")

    if missions > 0 {
      let path = directory.appendingPathComponent("missions.sqlite").path
      let setup = try measure {
        let database = try MissionDatabase(
          path: path, configuration: StoreConfiguration(synchronous: .normal))
        try database.insert(makeMissions(count: missions))
        try database.close()
      }
      var locationTimes: [Double] = []
      var locationCPUTimes: [Double] = []
      var fullTimes: [Double] = []
      var indexTimes: [Double] = []
      var indexCPUTimes: [Double] = []
      var count = 0
      var indexed = 0
      for _ in 0..<repeats {
        let build = try measureWallAndCPU {
          let database = try MissionDatabase(path: path)
          indexed = try database.proximityIndex().count
          try database.close()
        }
        indexTimes.append(build.wall)
        indexCPUTimes.append(build.cpu)
        let read = try measureWallAndCPU {
          let database = try MissionDatabase(path: path)
          count = try database.missionLocations().count
          try database.close()
        }
        locationTimes.append(read.wall)
        locationCPUTimes.append(read.cpu)
        fullTimes.append(
          try measure {
            let database = try MissionDatabase(path: path)
            count = try database.missions().count
            try database.close()
          })
      }
      guard count == missions, indexed == missions else {
        throw CLIError.failure(
          "read back \(count) missions and indexed \(indexed), stored \(missions)")
      }
      json.add("missions", missions)
      json.add("missions_insert_s", setup)
      json.add("open_and_read_locations_s", BenchMeasure.median(locationTimes))
      json.add("open_and_read_locations_cpu_s", BenchMeasure.median(locationCPUTimes))
      json.add("open_and_read_full_missions_s", BenchMeasure.median(fullTimes))
      json.add("open_read_and_build_index_s", BenchMeasure.median(indexTimes))
      json.add("open_read_and_build_index_cpu_s", BenchMeasure.median(indexCPUTimes))
      json.add("index_target_s", 2.0)
      console.err("missions (\(missions)):")
      console.err("  insert (one transaction):        \(String(format: "%.3f", setup)) s")
      console.err(
        "  open + read locations for index: \(String(format: "%.3f", BenchMeasure.median(locationTimes))) s"
      )
      console.err(
        "  open + read full Mission rows:   \(String(format: "%.3f", BenchMeasure.median(fullTimes))) s"
      )
      console.err(
        "  open + read + build index:       \(String(format: "%.3f", BenchMeasure.median(indexTimes))) s wall, "
          + "\(String(format: "%.3f", BenchMeasure.median(indexCPUTimes))) s CPU (target 2 s)")
    }
    console.out(json.result)
    return 0
  }

  /// Wall-clock seconds spent in `body`.
  private static func measure(_ body: () throws -> Void) throws -> Double {
    try measureWallAndCPU(body).wall
  }

  /// Wall-clock and process CPU seconds spent in `body`. The CPU figure shows the cost
  /// independent of other processes competing for the cores.
  private static func measureWallAndCPU(_ body: () throws -> Void) throws
    -> (wall: Double, cpu: Double)
  {
    let cpuStart = processCPUSeconds()
    let elapsed = try ContinuousClock().measure(body)
    let cpu = processCPUSeconds() - cpuStart
    let (seconds, attoseconds) = elapsed.components
    return (Double(seconds) + Double(attoseconds) * 1e-18, cpu)
  }

  private static func processCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
  }

  /// The 1-minute load average, to judge how shared the machine was.
  private static func loadAverage() -> Double {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
      let first = text.split(separator: " ").first, let value = Double(decimalText: String(first))
    else { return -1 }
    return value
  }

  /// Records `events` into a new database with one active mission; returns the wall and CPU
  /// seconds from the first `record` to the end of the final flush, and the CPU seconds to
  /// read the event lines back (compact fix events are rebuilt from the track).
  private static func ingest(
    _ events: ArraySlice<TrackingEvent>, directory: URL, name: String,
    configuration: StoreConfiguration
  ) throws -> (wall: Double, cpu: Double, readCPU: Double) {
    let path = directory.appendingPathComponent("\(name).sqlite").path
    let database = try MissionDatabase(path: path, configuration: configuration)
    try database.insert([
      Mission(
        id: "bench", coordinate: try Coordinate(latitude: 59.3293, longitude: 18.0686),
        state: .active)
    ])
    let seconds = try measureWallAndCPU {
      for event in events { try database.record(event) }
      try database.flush()
    }
    let stored = database.ingestCounters.fixes
    var lines = 0
    let read = try measureWallAndCPU {
      lines = try database.eventLines(ofMission: "bench").count
    }
    try database.close()
    guard stored == events.count, lines == events.count else {
      throw CLIError.failure("stored \(stored) fixes of \(events.count), read \(lines) lines")
    }
    return (seconds.wall, seconds.cpu, read.cpu)
  }

  /// A walk north-east from Stockholm, one fix per 100 ms, with every field set.
  private static func makeFixEvents(count: Int) -> [TrackingEvent] {
    let start = Date(timeIntervalSince1970: 1_780_000_000)
    return (0..<count).map { i in
      let fix = Fix(
        time: start.addingTimeInterval(Double(i) * 0.1),
        coordinate: Coordinate(
          uncheckedLatitude: 59.3 + Double(i % 100_000) * 1e-6,
          longitude: 18.0 + Double(i / 100_000) * 1e-3),
        mode: .threeD, source: "bench", altitudeMeters: 20, horizontalAccuracyMeters: 5,
        speedMetersPerSecond: 1.4, courseDegrees: 45, satellitesUsed: 10)
      return TrackingEvent(
        time: fix.time, missionID: "bench",
        kind: .fix(fix, distanceToMissionMeters: 1000, travelledMeters: Double(i) * 0.14))
    }
  }

  /// Missions spread over the globe with realistic text fields.
  private static func makeMissions(count: Int) -> [Mission] {
    var state: UInt64 = 0x5EED
    func next() -> Double {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return Double(state >> 11) / Double(1 << 53)
    }
    return (0..<count).map { i in
      Mission(
        id: String(i), title: "Photograph the shop front #\(i)",
        coordinate: Coordinate(uncheckedLatitude: next() * 180 - 90, longitude: next() * 360 - 180),
        reward: "350", currency: "SEK", address: "Storgatan \(i % 200)",
        state: i % 10 == 0 ? .accepted : .open)
    }
  }
}
