import Foundation

/// Timing helpers shared by the benchmarks: medians and the process's CPU time.
enum BenchMeasure {
  /// The median of `values` (the mean of the middle two for an even count).
  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  /// User plus system CPU time of this process and its waited-for children, seconds.
  static func cpuSeconds() -> Double {
    func seconds(_ who: Int32) -> Double {
      var usage = rusage()
      getrusage(__rusage_who_t(who), &usage)
      return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
    return seconds(RUSAGE_SELF.rawValue) + seconds(RUSAGE_CHILDREN.rawValue)
  }

  /// Runs `body` and returns its wall and CPU seconds.
  static func time(_ body: () async throws -> Void) async rethrows -> (wall: Double, cpu: Double) {
    let cpu = cpuSeconds()
    let start = ContinuousClock.now
    try await body()
    let (s, atto) = (ContinuousClock.now - start).components
    return (Double(s) + Double(atto) * 1e-18, cpuSeconds() - cpu)
  }
}
