import CommandLineSupport
import Foundation
import MissionTracking
import TextRules
import TraceFormats

/// `missiontrack-bench parse FILE`: trace decoding throughput, file to fixes, against a naive
/// String-splitting NMEA parser measured in the same run.
enum ParseBenchmark: Benchmark {
  static let name = "parse"
  static let summary = "Trace decoding throughput (file to fixes) against a naive parser"
  static let help = """
    NAME
      missiontrack-bench parse - how fast a trace decodes, file to fixes

    SYNOPSIS
      missiontrack-bench parse FILE [--repeats N] [--no-baseline]

    DESCRIPTION
      Decodes FILE (format detected from content) N times with the streaming reader and
      prints one JSON object: format, bytes, records, fixes, seconds (median wall time),
      mb_per_s, cpu_seconds and cpu_mb_per_s (process CPU time: the one-core cost on a
      shared machine), peak_rss_mb (peak resident memory of the process after the measured runs, before the
      baseline runs), and for NMEA the naive baseline: a parser that turns each 1 MB chunk
      into a String, splits it into lines and each line at commas, parses RMC/GGA fields
      with Double(_:) and merges the two by time; for GPX, Foundation's XMLParser over the
      whole file. speedup = mb_per_s / baseline_mb_per_s.
      Generate large files with Tools/gen-trace (NMEA) and Tools/gen-gpx. Build with -c release.

    OPTIONS
      --repeats N     Runs of each parser (default 5); the median is reported.
      --no-baseline   Skip the naive baseline (for profiling).

    EXAMPLES
      Tools/gen-trace --fixes 1000000 --out /tmp/trace-1m.nmea
      .build/release/missiontrack-bench parse /tmp/trace-1m.nmea
    """

  static func run(_ arguments: inout ArgumentList, console: Console) async throws -> Int32 {
    let repeats = try arguments.int("--repeats", in: 1...100) ?? 5
    let skipBaseline = arguments.flag("--no-baseline")
    let paths = try arguments.positionals()
    guard paths.count == 1, let path = paths.first else {
      throw CLIError.usage("bench parse needs one FILE")
    }
    var info = stat()
    guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
      throw CLIError.failure("\(path): not a readable regular file")
    }
    let bytes = Int(info.st_size)
    var seconds: [Double] = []
    var cpuSeconds: [Double] = []
    var statistics = TraceStatistics()
    var format: TraceFormat?
    for _ in 0..<repeats {
      let clock = ContinuousClock()
      var fixes = 0
      let start = clock.now
      let cpuStart = processCPUSeconds()
      do {
        let reader = try TraceReader(path: path, chunkSize: 1 << 20)
        statistics = try reader.forEachBatch { fixes += $0.count }
        format = reader.format
      } catch let error as TraceError {
        throw CLIError.failure(error.description)
      }
      seconds.append((clock.now - start).seconds)
      cpuSeconds.append(processCPUSeconds() - cpuStart)
      precondition(fixes == statistics.fixes)
    }
    let peakRSS = peakResidentMegabytes()
    let median = BenchMeasure.median(seconds)
    var object = JSONObjectWriter()
    object.add("format", format?.rawValue ?? "empty")
    object.add("bytes", bytes)
    object.add("records", statistics.recordsRead)
    object.add("fixes", statistics.fixes)
    object.add("seconds", median)
    object.add("mb_per_s", Double(bytes) / 1e6 / median)
    object.add("cpu_seconds", BenchMeasure.median(cpuSeconds))
    object.add("cpu_mb_per_s", Double(bytes) / 1e6 / BenchMeasure.median(cpuSeconds))
    object.add("peak_rss_mb", peakRSS)
    if format != .gpsdJSON && !skipBaseline {
      var baselineSeconds: [Double] = []
      var baselineFixes = 0
      for _ in 0..<repeats {
        let clock = ContinuousClock()
        let start = clock.now
        baselineFixes =
          format == .gpx
          ? try GPXBaseline.countFixes(path: path) : try NaiveNMEAParser.countFixes(path: path)
        baselineSeconds.append((clock.now - start).seconds)
      }
      let baseline = Double(bytes) / 1e6 / BenchMeasure.median(baselineSeconds)
      object.add("baseline_mb_per_s", baseline)
      object.add("baseline_fixes", baselineFixes)
      object.add("speedup", Double(bytes) / 1e6 / median / baseline)
    }
    object.add("repeats", repeats)
    console.out(object.result)
    return 0
  }

  /// User plus system CPU time of this process so far, in seconds: on a shared machine this
  /// is the one-core cost, whatever the wall clock says.
  static func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
  }

  /// Peak resident set size of this process so far, in MB (Linux reports KiB).
  static func peakResidentMegabytes() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024
  }
}

extension Duration {
  /// The duration in seconds.
  fileprivate var seconds: Double {
    let (whole, attoseconds) = components
    return Double(whole) + Double(attoseconds) / 1e18
  }
}
