import CommandLineSupport
import Foundation
import MissionTracking
import TextRules

/// `missiontrack-bench pipeline`: synthetic fixes through clean → geofence → distance filter
/// with 100 missions around the worker, against a naive baseline in the same run.
enum PipelineBenchmark: Benchmark {
  static let name = "pipeline"
  static let summary = "Tracking pipeline (clean, geofence, filter) with missions nearby"
  static let help = """
    NAME
      missiontrack-bench pipeline - measure the tracking pipeline

    SYNOPSIS
      missiontrack-bench pipeline [--fixes N] [--missions M] [--repeat R]
                                  [--baseline-fixes B] [--seed S]

    DESCRIPTION
      Generates a 1 Hz walk with GPS jitter (seeded) through a 3 km wide area with M
      missions (radius 30-80 m), with a duplicate every 500th report, an out-of-order
      report every 700th and an outlier jump every 1000th. Runs them through
      TrackingPipeline (cleaner, geofence evaluator on every clean fix, 10 m distance
      filter, fix events with the distance to the mission) R times on one core and
      reports the median. Rates are per second of the thread's CPU time
      (CLOCK_THREAD_CPUTIME_ID), so that other processes on a shared machine do not
      count; the wall-clock rate is reported too. The naive baseline measures every fence on every fix with no
      prefilter and allocates a new event array per fix; it runs on the first B fixes.
      "agree" is true when both gave identical events on those fixes.

      Prints one JSON object on standard output:
        fixes, missions, repeats, cpu_seconds and wall_seconds (medians), fixes_per_s
        (CPU), fixes_per_wall_s, ns_per_fix, delivered,
        events, rejected, baseline_fixes, baseline_fixes_per_s, speedup, agree,
        target_fixes_per_s, meets_target.
      A short table goes to standard error. Build with: swift build -c release

    OPTIONS
      --fixes N            Fixes per repeat (default 2000000).
      --missions M         Missions around the worker (default 100).
      --repeat R           Repeats; the median is reported (default 5).
      --baseline-fixes B   Fixes for the naive baseline (default 200000).
      --seed S             Seed of the generator (default 1).

    EXAMPLES
      swift run -c release missiontrack-bench pipeline
    """

  /// The issue's throughput target, fixes per second on one core.
  static let targetFixesPerSecond: Double = 2_000_000

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let count = try arguments.int("--fixes", in: 1...100_000_000) ?? 2_000_000
    let missionCount = try arguments.int("--missions", in: 1...1_000_000) ?? 100
    let repeats = try arguments.int("--repeat", in: 1...1000) ?? 5
    let baselineCount = min(
      count, try arguments.int("--baseline-fixes", in: 1...100_000_000) ?? 200_000)
    let seed = try arguments.int("--seed", in: 0...Int.max) ?? 1
    try arguments.finish()

    var rng = BenchRandom(seed: UInt64(seed))
    let center = Coordinate(uncheckedLatitude: 59.617, longitude: 17.724)
    let missions = try (0..<missionCount).map { i in
      Mission(
        id: "sig-\(i)",
        coordinate: try center.destination(
          bearingDegrees: rng.uniform(0, 360), distanceMeters: rng.uniform(0, 1500)),
        geofenceRadiusMeters: rng.uniform(30, 80), state: .active)
    }
    let fixes = try syntheticWalk(count: count, around: center, rng: &rng)
    let others = missions.dropFirst().map(Geofence.init(mission:))

    func makePipeline(prefilter: Bool) -> TrackingPipeline {
      var pipeline = TrackingPipeline(mission: missions[0], nearbyFences: others)
      pipeline.usesGeofencePrefilter = prefilter
      return pipeline
    }

    var times: [Double] = []
    var wallTimes: [Double] = []
    var events = 0
    var delivered = 0
    var rejected = 0
    var buffer: [TrackingEvent] = []
    buffer.reserveCapacity(64)
    for _ in 0..<repeats {
      var pipeline = makePipeline(prefilter: true)
      var total = 0
      let watch = Stopwatch()
      for fix in fixes {
        pipeline.process(fix, into: &buffer)
        total &+= buffer.count
        buffer.removeAll(keepingCapacity: true)
      }
      pipeline.finish(into: &buffer)
      total &+= buffer.count
      buffer.removeAll(keepingCapacity: true)
      let elapsed = watch.elapsed()
      times.append(elapsed.cpu)
      wallTimes.append(elapsed.wall)
      events = total
      delivered = pipeline.filter.deliveredCount
      rejected = pipeline.summary.rejectedTotal
    }

    // The naive baseline: every fence measured on every fix, a fresh array per fix.
    let baselineFixes = fixes.prefix(baselineCount)
    var baselineTimes: [Double] = []
    for _ in 0..<max(1, repeats / 2) {
      var pipeline = makePipeline(prefilter: false)
      var total = 0
      let watch = Stopwatch()
      for fix in baselineFixes {
        var fresh: [TrackingEvent] = []
        pipeline.process(fix, into: &fresh)
        total &+= fresh.count
      }
      baselineTimes.append(watch.elapsed().cpu)
      if total < 0 { console.err("impossible") }
    }

    // Same events on the baseline's fixes (not timed).
    var fast = makePipeline(prefilter: true)
    var slow = makePipeline(prefilter: false)
    var fastEvents: [TrackingEvent] = []
    var slowEvents: [TrackingEvent] = []
    for fix in baselineFixes {
      fast.process(fix, into: &fastEvents)
      slow.process(fix, into: &slowEvents)
    }
    let agree = fastEvents == slowEvents

    let seconds = BenchMeasure.median(times)
    let perSecond = Double(count) / seconds
    let baselinePerSecond = Double(baselineFixes.count) / BenchMeasure.median(baselineTimes)
    var json = JSONObjectWriter()
    json.add("benchmark", "pipeline")
    json.add("fixes", count)
    json.add("missions", missionCount)
    json.add("repeats", repeats)
    json.add("cpu_seconds", seconds)
    json.add("wall_seconds", BenchMeasure.median(wallTimes))
    json.add("fixes_per_s", perSecond.rounded())
    json.add("fixes_per_wall_s", (Double(count) / BenchMeasure.median(wallTimes)).rounded())
    json.add("ns_per_fix", 1e9 / perSecond)
    json.add("delivered", delivered)
    json.add("events", events)
    json.add("rejected", rejected)
    json.add("baseline_fixes", baselineFixes.count)
    json.add("baseline_fixes_per_s", baselinePerSecond.rounded())
    json.add("speedup", perSecond / baselinePerSecond)
    json.add("agree", agree)
    json.add("target_fixes_per_s", targetFixesPerSecond)
    json.add("meets_target", perSecond >= targetFixesPerSecond)
    console.out(json.result)
    console.err(
      String(
        format:
          "pipeline  %10.0f fixes/CPU-s  (%.0f ns/fix, median of %d)\nbaseline  %10.0f fixes/CPU-s  speedup %.1fx  agree %@",
        perSecond, 1e9 / perSecond, repeats, baselinePerSecond, perSecond / baselinePerSecond,
        agree ? "yes" : "NO"))
    return agree ? 0 : 1
  }

  /// A 1 Hz walk at ~1.4 m/s with 3 m jitter that turns at random and stays within 1.6 km of
  /// `center`, with duplicates, out-of-order reports and outliers mixed in.
  private static func syntheticWalk(count: Int, around center: Coordinate, rng: inout BenchRandom)
    throws -> [Fix]
  {
    var fixes: [Fix] = []
    fixes.reserveCapacity(count)
    var position = center
    var bearing = rng.uniform(0, 360)
    let t0 = Date(timeIntervalSince1970: 1_777_888_800)
    var second = 0.0
    while fixes.count < count {
      if rng.uniform(0, 1) < 0.02 { bearing = rng.uniform(0, 360) }
      if center.distance(to: position) > 1600 {
        bearing = position.initialBearingDegrees(to: center)
      }
      position = try position.destination(bearingDegrees: bearing, distanceMeters: 1.4)
      let seen = try position.destination(
        bearingDegrees: rng.uniform(0, 360), distanceMeters: rng.uniform(0, 3))
      second += 1
      let fix = Fix(
        time: t0 + second, coordinate: seen, source: "bench", horizontalAccuracyMeters: 5)
      let n = fixes.count
      if n % 1000 == 999 {
        var jump = fix
        jump.coordinate = try seen.destination(bearingDegrees: 90, distanceMeters: 5000)
        fixes.append(jump)
      } else if n % 700 == 699, let previous = fixes.last {
        var late = previous
        late.time = previous.time - 5
        fixes.append(late)
      } else if n % 500 == 499, let previous = fixes.last {
        fixes.append(previous)
      } else {
        fixes.append(fix)
      }
    }
    return fixes
  }

  /// A reading of the wall clock and of this thread's CPU time, seconds.
  private struct Stopwatch {
    let wall = ContinuousClock.now
    let cpu = Stopwatch.threadCPUSeconds()

    static func threadCPUSeconds() -> Double {
      var spec = timespec()
      clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
      return Double(spec.tv_sec) + Double(spec.tv_nsec) * 1e-9
    }

    /// (wall, cpu) seconds since the start.
    func elapsed() -> (wall: Double, cpu: Double) {
      let duration = ContinuousClock.now - wall
      let wallSeconds =
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
      return (wallSeconds, Stopwatch.threadCPUSeconds() - cpu)
    }
  }

}

/// Uniform doubles from the seeded generator, for the benchmark's synthetic data.
private struct BenchRandom {
  var generator: SplitMix64
  init(seed: UInt64) { generator = SplitMix64(seed: seed) }
  mutating func next() -> UInt64 { generator.next() }
  mutating func uniform(_ low: Double, _ high: Double) -> Double {
    low + (high - low) * Double(next() >> 11) / Double(1 << 53)
  }
}
