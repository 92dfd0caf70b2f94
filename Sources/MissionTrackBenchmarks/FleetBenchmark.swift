import CommandLineSupport
import Foundation
import MissionProximity
import MissionTracking
import TextRules

/// `missiontrack-bench fleet`: many workers tracked at once by one engine, against one
/// worker through the same engine in the same run.
enum FleetBenchmark: Benchmark {
  static let name = "fleet"
  static let summary = "Many workers tracked at once: CPU per fix and memory per worker"
  static let help = """
    NAME
      missiontrack-bench fleet - measure an engine tracking many workers at once

    SYNOPSIS
      missiontrack-bench fleet [--workers N] [--missions M] [--seconds S] [--seed X]

    DESCRIPTION
      Loads M missions spread over Sweden into one engine (in-memory store, events drained
      by one consumer), then measures:
        single     one worker tracked, N*S fixes pushed one at a time through `ingest`,
                   one a second of simulated time: CPU per fix;
        fleet      N workers started at once (each on its own mission, walking toward it
                   from 300 m), then S simulated seconds of one fix a second per worker,
                   pushed one at a time in worker order: CPU per fix;
        memory     resident memory after starting the N sessions and delivering each its
                   first fix, minus before, per worker (the in-memory store keeps no track,
                   so this is what a session costs beyond its track).
      Prints a table on standard error and one JSON object on standard output.

    OPTIONS
      --workers N    Workers tracked at once (default 10000).
      --missions M   Missions loaded (default 1000000).
      --seconds S    Simulated seconds of fixes (default 20).
      --seed X       Seed of the mission and walk generator (default 1).

    EXAMPLES
      swift build -c release --product missiontrack-bench
      .build/release/missiontrack-bench fleet
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let workerCount = try arguments.int("--workers", in: 1...1_000_000) ?? 10_000
    let missionCount = try arguments.int("--missions", in: 1...10_000_000) ?? 1_000_000
    let seconds = try arguments.int("--seconds", in: 2...100_000) ?? 20
    let seed = try arguments.int("--seed", in: 0...Int.max) ?? 1
    guard try arguments.positionals().isEmpty else {
      throw CLIError.usage("fleet takes no TRACE")
    }
    guard workerCount < missionCount else {
      throw CLIError.usage("--missions must be more than --workers")
    }
    var random = SplitMix64(seed: UInt64(seed))
    var missions: [Mission] = []
    missions.reserveCapacity(missionCount)
    for index in 0..<missionCount {
      // Sweden's box, roughly: about 2 missions per km², a few within 1 km of a worker.
      let place = Coordinate(
        uncheckedLatitude: Double.random(in: 55.5...68.5, using: &random),
        longitude: Double.random(in: 12.0...23.0, using: &random))
      missions.append(Mission(id: "m\(index)", coordinate: place))
    }
    // Worker w takes mission w (accepted, not yet started); the single worker the last one.
    for index in 0...workerCount {
      let id = index == workerCount ? "solo" : "w\(index)"
      missions[index].state = .accepted
      missions[index].workerID = id
    }
    let store = InMemoryTrackingStore(missions: missions, keepsEvents: false)
    let engine = MissionEngine(
      store: store, sources: { _ in nil }, clock: ManualClock(Date(timeIntervalSince1970: 0)),
      configuration: .init(changePollInterval: .seconds(3600)))
    try await engine.open()
    let drained = Task {
      var count = 0
      for await batch in engine.events.batchesAsHandedOver { count += batch.count }
      return count
    }

    /// Walkers: each starts 300 m south of its mission and walks north at 1.4 m/s, past it.
    func fix(of mission: Mission, at second: Int) -> Fix {
      let south = 300 - 1.4 * Double(second)
      let place =
        (try? mission.coordinate.destination(
          bearingDegrees: south >= 0 ? 180 : 0, distanceMeters: abs(south)))
        ?? mission.coordinate
      return Fix(
        time: Date(timeIntervalSince1970: Double(second)), coordinate: place, mode: .threeD,
        source: "bench", horizontalAccuracyMeters: 5)
    }

    // Single: one worker, as many fixes as the fleet gets.
    let solo = missions[workerCount]
    let totalFixes = workerCount * seconds
    try await engine.perform(.start, on: solo.id, at: Date(timeIntervalSince1970: 0))
    let single = try await BenchMeasure.time {
      // One long straight walk (past the mission and on), one fix a second.
      for second in 1...totalFixes {
        _ = try await engine.ingest([fix(of: solo, at: second)], worker: "solo")
      }
    }

    // Fleet: memory of N sessions, then N fixes a second.
    let before = residentBytes()
    for index in 0..<workerCount {
      try await engine.perform(.start, on: missions[index].id, at: Date(timeIntervalSince1970: 0))
    }
    for index in 0..<workerCount {
      _ = try await engine.ingest([fix(of: missions[index], at: 1)], worker: "w\(index)")
    }
    let started = residentBytes()
    let fleet = try await BenchMeasure.time {
      for second in 2...(seconds + 1) {
        for index in 0..<workerCount {
          _ = try await engine.ingest(
            [fix(of: missions[index], at: second)], worker: "w\(index)")
        }
      }
    }
    let tracked = await engine.trackedMissions.count
    await engine.shutdown()
    let events = await drained.value

    let singlePerFix = single.cpu / Double(totalFixes) * 1e6
    let fleetPerFix = fleet.cpu / Double(workerCount * seconds) * 1e6
    let perWorker = Double(started - before) / Double(workerCount)
    let rows: [(String, String, String)] = [
      ("single", String(format: "%.2f µs CPU/fix", singlePerFix), "\(totalFixes) fixes"),
      (
        "fleet", String(format: "%.2f µs CPU/fix", fleetPerFix),
        "\(workerCount) workers × \(seconds) s, \(tracked) tracked"
      ),
      ("ratio", String(format: "%.2f×", fleetPerFix / singlePerFix), "target ≤ 2×"),
      ("memory", String(format: "%.0f B/worker", perWorker), "target ≤ 4096 B"),
    ]
    console.err("fleet: \(missionCount) missions loaded, \(events) events")
    for (row, value, note) in rows {
      console.err(
        "  \(row.padding(toLength: 8, withPad: " ", startingAt: 0))"
          + "\(value.padding(toLength: 20, withPad: " ", startingAt: 0))\(note)")
    }
    var object = JSONObjectWriter()
    object.add("missions", missionCount)
    object.add("workers", workerCount)
    object.add("seconds", seconds)
    object.add("single_cpu_us_per_fix", singlePerFix)
    object.add("fleet_cpu_us_per_fix", fleetPerFix)
    object.add("memory_bytes_per_worker", perWorker)
    object.add("events", events)
    console.out(object.result)
    return 0
  }

  /// The resident memory of this process now, bytes (`/proc/self/statm`), 0 when unknown.
  private static func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
      return 0
    }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}
