import CommandLineSupport
import Foundation
import MissionProximity

/// `missiontrack-bench nearby`: builds a `SpatialGrid` from a missions CSV, runs every query of
/// a queries CSV (radius or k-nearest), and checks a sample against a brute-force scan.
enum NearbyBenchmark: Benchmark {
  static let name = "nearby"
  static let summary = "Spatial grid radius / k-nearest queries against a brute-force scan"
  static let help = """
    NAME
      missiontrack-bench nearby - measure the mission-proximity grid index

    SYNOPSIS
      missiontrack-bench nearby --missions M.csv --queries Q.csv (--radius METRES | --k K)
                                [--repeat N] [--baseline N] [--per-cell X]

    DESCRIPTION
      Reads two CSV files with a header line and the columns id,lat,lon (degrees), builds
      the grid index from the missions, and runs every query: all missions within --radius
      metres, or the --k nearest (with both, the k nearest within the radius). Build and
      query phases are repeated --repeat times and medians are reported. A brute-force
      haversine scan over an evenly spaced sample of --baseline queries runs in the same
      process; "agree" is true when the grid gave the same ids, order and distances.

      Prints one JSON object on standard output:
        missions, queries, build_s, query_s, queries_per_s, results (total over one pass),
        index_bytes (cell table + slots + payloads), bytes_per_mission, id_bytes (id array
        and id dictionary, estimated), peak_rss_mb, baseline_queries,
        baseline_queries_per_s, speedup, agree, cow_first_write_s (first write to a copy
        that shares storage), move_ns (mean cost of moving a mission), build_cpu_s,
        query_cpu_s and queries_per_cpu_s (process CPU time: what one core takes when the
        machine is shared) and load_average (one-minute load when the run ended).
      A short table goes to standard error. Build with: swift build -c release

    OPTIONS
      --missions PATH   Missions CSV (id,lat,lon).
      --queries PATH    Query points CSV (id,lat,lon).
      --radius METRES   Radius query, inclusive.
      --k K             k-nearest query.
      --repeat N        Repeats of build and queries (default 3).
      --baseline N      Queries checked against the brute-force scan (default 50).
      --per-cell X      Target missions per cell (default \(SpatialGrid<UInt8>.defaultMissionsPerCell)).

    EXAMPLES
      Tools/gen-missions /tmp/nearby
      missiontrack-bench nearby --missions /tmp/nearby/clustered-missions.csv \\
        --queries /tmp/nearby/clustered-queries.csv --radius 1000
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    guard let missionsPath = try arguments.option("--missions") else {
      throw CLIError.usage("--missions PATH is required")
    }
    guard let queriesPath = try arguments.option("--queries") else {
      throw CLIError.usage("--queries PATH is required")
    }
    let radius = try arguments.double("--radius", in: 0...1e12)
    let k = try arguments.int("--k", in: 0...1_000_000)
    let repeats = try arguments.int("--repeat", in: 1...1000) ?? 3
    let baselineCount = try arguments.int("--baseline", in: 0...1_000_000) ?? 50
    let perCell =
      try arguments.double("--per-cell", in: 0.01...1e6)
      ?? SpatialGrid<UInt8>.defaultMissionsPerCell
    try arguments.finish()
    guard radius != nil || k != nil else { throw CLIError.usage("give --radius or --k") }

    let missions = try readPoints(missionsPath).map {
      (id: $0.id, coordinate: $0.1, payload: UInt8(0))
    }
    let queries = try readPoints(queriesPath).map(\.coordinate)

    var buildTimes: [Double] = []
    var buildCPUTimes: [Double] = []
    var grid = try SpatialGrid<UInt8>([], targetMissionsPerCell: perCell)
    for _ in 0..<repeats {
      grid = try SpatialGrid<UInt8>([], targetMissionsPerCell: perCell)
      let start = ContinuousClock.now
      let cpuStart = cpuSeconds()
      grid = try SpatialGrid(missions, targetMissionsPerCell: perCell)
      buildCPUTimes.append(cpuSeconds() - cpuStart)
      buildTimes.append(seconds(since: start))
    }

    func query(_ point: Coordinate) throws -> [ProximityMatch] {
      if let k { return try grid.nearest(k, to: point, within: radius) }
      return try grid.missions(within: radius ?? 0, of: point)
    }
    var queryTimes: [Double] = []
    var queryCPUTimes: [Double] = []
    var results = 0
    for _ in 0..<repeats {
      var total = 0
      let start = ContinuousClock.now
      let cpuStart = cpuSeconds()
      for point in queries { total &+= try query(point).count }
      queryCPUTimes.append(cpuSeconds() - cpuStart)
      queryTimes.append(seconds(since: start))
      results = total
    }

    // Brute force over an evenly spaced sample of the same queries.
    let sample = stride(
      from: 0, to: queries.count, by: max(1, queries.count / max(1, baselineCount))
    )
    .prefix(baselineCount).map { queries[$0] }
    var agree = true
    let baselineStart = ContinuousClock.now
    var expected: [[ProximityMatch]] = []
    for point in sample {
      expected.append(bruteForce(missions, from: point, radius: radius, k: k))
    }
    let baselineSeconds = seconds(since: baselineStart)
    for (point, truth) in zip(sample, expected) where try query(point) != truth {
      agree = false
    }

    // Copy-on-write and update costs, on a copy so the measured grid stays intact: the first
    // move duplicates the shared storage.
    var copy = grid
    let cowStart = ContinuousClock.now
    if let first = missions.first { copy.move(first.id, to: first.coordinate) }
    let cowSeconds = seconds(since: cowStart)
    var rng = SystemRandomNumberGenerator()
    let moves = min(100_000, missions.count)
    let targets = (0..<moves).map { _ in missions[Int.random(in: 0..<missions.count, using: &rng)] }
    let moveStart = ContinuousClock.now
    for mission in targets {
      let lat = min(90, max(-90, mission.coordinate.latitude + 0.001))
      copy.move(
        mission.id, to: try Coordinate(latitude: lat, longitude: mission.coordinate.longitude))
    }
    let moveNanoseconds = moves > 0 ? seconds(since: moveStart) / Double(moves) * 1e9 : 0

    let buildSeconds = BenchMeasure.median(buildTimes)
    let querySeconds = BenchMeasure.median(queryTimes)
    let queriesPerSecond = Double(queries.count) / querySeconds
    let baselinePerSecond = sample.isEmpty ? 0 : Double(sample.count) / baselineSeconds
    let indexBytes = grid.indexByteCount
    let fields: [(String, String)] = [
      ("missions", "\(grid.count)"),
      ("queries", "\(queries.count)"),
      ("mode", k == nil ? "\"radius\"" : "\"k\""),
      ("radius_m", radius.map { "\($0)" } ?? "null"),
      ("k", k.map { "\($0)" } ?? "null"),
      ("repeat", "\(repeats)"),
      ("build_s", fixed(buildSeconds, 4)),
      ("query_s", fixed(querySeconds, 4)),
      ("queries_per_s", fixed(queriesPerSecond, 0)),
      ("build_cpu_s", fixed(BenchMeasure.median(buildCPUTimes), 4)),
      ("query_cpu_s", fixed(BenchMeasure.median(queryCPUTimes), 4)),
      ("queries_per_cpu_s", fixed(Double(queries.count) / BenchMeasure.median(queryCPUTimes), 0)),
      ("load_average", fixed(loadAverage(), 2)),
      ("results", "\(results)"),
      ("index_bytes", "\(indexBytes)"),
      ("bytes_per_mission", fixed(Double(indexBytes) / Double(max(1, grid.count)), 2)),
      ("id_bytes", "\(grid.identifierByteCount)"),
      ("peak_rss_mb", fixed(peakResidentMegabytes(), 1)),
      ("baseline_queries", "\(sample.count)"),
      ("baseline_queries_per_s", fixed(baselinePerSecond, 1)),
      ("speedup", fixed(baselinePerSecond > 0 ? queriesPerSecond / baselinePerSecond : 0, 1)),
      ("agree", "\(agree)"),
      ("cow_first_write_s", fixed(cowSeconds, 4)),
      ("move_ns", fixed(moveNanoseconds, 0)),
    ]
    console.out("{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}")
    console.err(
      """
      nearby: \(grid.count) missions, \(queries.count) queries, \
      \(k.map { "k=\($0)" } ?? "radius \(radius ?? 0) m")
        build   \(fixed(buildSeconds * 1000, 1)) ms   index \(fixed(Double(indexBytes) / Double(max(1, grid.count)), 1)) B/mission
        grid    \(fixed(queriesPerSecond, 0)) q/s   \(results) results
        scan    \(fixed(baselinePerSecond, 1)) q/s over \(sample.count) queries   speed-up \
      \(fixed(baselinePerSecond > 0 ? queriesPerSecond / baselinePerSecond : 0, 0))x   agree \(agree)
      """)
    return agree ? 0 : 1
  }

  /// The brute-force answer: every mission's haversine distance, filtered and sorted.
  static func bruteForce(
    _ missions: [(id: String, coordinate: Coordinate, payload: UInt8)], from point: Coordinate,
    radius: Double?, k: Int?
  ) -> [ProximityMatch] {
    let limit = radius ?? .infinity
    var found: [(distance: Double, index: Int)] = []
    for index in missions.indices {
      let distance = point.distance(to: missions[index].coordinate)
      if distance <= limit { found.append((distance, index)) }
    }
    found.sort {
      $0.distance < $1.distance
        || ($0.distance == $1.distance && missions[$0.index].id < missions[$1.index].id)
    }
    let kept = k.map { found.prefix($0) } ?? found[...]
    return kept.map { ProximityMatch(id: missions[$0.index].id, distanceMeters: $0.distance) }
  }

  /// Reads an `id,lat,lon` CSV with a header line.
  static func readPoints(_ path: String) throws -> [(id: String, coordinate: Coordinate)] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw CLIError.failure("cannot read \(path)")
    }
    var points: [(id: String, coordinate: Coordinate)] = []
    var lineNumber = 0
    var failure: CLIError?
    data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
      let bytes = raw.bindMemory(to: UInt8.self)
      var lineStart = 0
      while lineStart < bytes.count, failure == nil {
        var lineEnd = lineStart
        while lineEnd < bytes.count && bytes[lineEnd] != 0x0A { lineEnd += 1 }
        lineNumber += 1
        var end = lineEnd
        if end > lineStart && bytes[end - 1] == 0x0D { end -= 1 }
        defer { lineStart = lineEnd + 1 }
        guard end > lineStart else { continue }
        let line = String(
          decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<end]), as: UTF8.self)
        if lineNumber == 1 {
          if !line.hasPrefix("id,lat,lon") {
            failure = .failure("\(path):1: expected the header id,lat,lon, got '\(line)'")
          }
          continue
        }
        let fields = line.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count >= 3, let lat = Double(fields[1]), let lon = Double(fields[2]) else {
          failure = .failure("\(path):\(lineNumber): expected id,lat,lon, got '\(line)'")
          continue
        }
        do {
          points.append((String(fields[0]), try Coordinate(latitude: lat, longitude: lon)))
        } catch {
          failure = .failure("\(path):\(lineNumber): \(error)")
        }
      }
    }
    if let failure { throw failure }
    return points
  }

  static func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
  }

  /// CPU time used by the process so far, in seconds (the benchmark is single-threaded, so
  /// on a busy machine this is what one core would take).
  static func cpuSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
  }

  /// The one-minute load average, to judge how shared the machine was.
  static func loadAverage() -> Double {
    var loads = [Double](repeating: 0, count: 3)
    return getloadavg(&loads, 3) > 0 ? loads[0] : 0
  }

  static func fixed(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
  }

  /// The process's peak resident set (VmHWM) in MiB, or 0 when /proc is unavailable.
  static func peakResidentMegabytes() -> Double {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else {
      return 0
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let number = line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ")
      if let kilobytes = number.first.flatMap({ Double($0) }) { return kilobytes / 1024 }
    }
    return 0
  }
}
