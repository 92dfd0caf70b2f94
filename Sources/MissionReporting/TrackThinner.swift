import Foundation

/// Splits a track at time gaps and thins its page points for drawing.
enum TrackThinner {
  /// Index ranges of `times` with no step longer than `gapSeconds` inside; a longer step
  /// starts a new range. Empty input gives no ranges.
  /// - Complexity: O(n).
  static func segments(times: [Date], gapSeconds: Double) -> [Range<Int>] {
    guard !times.isEmpty else { return [] }
    var ranges: [Range<Int>] = []
    var start = 0
    for index in times.indices.dropFirst()
    where times[index].timeIntervalSince(times[index - 1]) > gapSeconds {
      ranges.append(start..<index)
      start = index
    }
    ranges.append(start..<times.count)
    return ranges
  }

  /// Drops points closer than a spacing to the last kept point of their segment (radial
  /// distance thinning), so every dropped point lies within that spacing of a kept one.
  /// The first and last point of every segment are always kept. The spacing starts at
  /// `minimumSpacing` pixels and doubles until at most `maximumPoints` remain in all (or
  /// each segment is down to its two ends).
  ///
  /// - Returns: The thinned segments and the spacing that was used.
  /// - Complexity: O(n log(n / maximumPoints)) in the number of points.
  static func thin(
    _ segments: [[PlanePoint]], minimumSpacing: Double, maximumPoints: Int
  ) -> (segments: [[PlanePoint]], spacing: Double) {
    var spacing = max(minimumSpacing, 0)
    while true {
      let thinned = segments.map { radial($0, spacing: spacing) }
      let total = thinned.reduce(0) { $0 + $1.count }
      let floor = segments.reduce(0) { $0 + min($1.count, 2) }
      if total <= maximumPoints || total <= floor || spacing > 1e9 {
        return (thinned, spacing)
      }
      spacing = spacing > 0 ? spacing * 2 : 0.5
    }
  }

  private static func radial(_ points: [PlanePoint], spacing: Double) -> [PlanePoint] {
    guard points.count > 2 else { return points }
    var kept = [points[0]]
    kept.reserveCapacity(points.count)
    for point in points.dropFirst().dropLast() where point.distance(to: kept.last!) >= spacing {
      kept.append(point)
    }
    kept.append(points[points.count - 1])
    return kept
  }
}
