import Foundation

/// Cleans raw position reports before the tracker sees them, in the order DESIGN.md §2 gives:
///
/// 1. reject invalid reports (mode no fix, a position out of range or not finite, exactly
///    (0, 0));
/// 2. merge the reports of one epoch (same fix time) into one fix;
/// 3. drop fixes whose time is not after the last accepted one (duplicates, out-of-order
///    arrivals): they never move the position and are counted;
/// 4. reject implied-speed outliers (distance from the last accepted fix over the time between
///    them above `maximumSpeedMetersPerSecond`) without moving the anchor;
/// 5. reject fixes whose horizontal accuracy is worse than `maximumHorizontalAccuracyMeters`,
///    when set.
///
/// **Latency of the epoch merge.** An epoch is complete only when a report with another time
/// arrives, so a fix is released one report later (one epoch, e.g. 1 s at 1 Hz) or when
/// `flush()` is called at the end of the input. Sources that already deliver one report per
/// epoch (gpsd TPV) can set `mergesEpochs` to false to release each fix at once.
///
/// **Re-anchoring.** The outlier check trusts the anchor. If the anchor itself was wrong (or
/// the receiver really moved during a gap), every later fix would be rejected forever; so
/// after `reanchorAfter` consecutive rejected fixes that agree with each other (their own
/// implied speed is within the limit) the latest is accepted and becomes the anchor.
public struct FixCleaner: Sendable {
  /// Limits and switches of the cleaner.
  public struct Configuration: Sendable, Hashable {
    /// Implied speed above which a fix is an outlier, m/s (default 100).
    public var maximumSpeedMetersPerSecond: Double
    /// Horizontal accuracy above which a fix is rejected, metres; nil disables the check.
    public var maximumHorizontalAccuracyMeters: Double?
    /// Whether reports with the same fix time are merged (default true).
    public var mergesEpochs: Bool
    /// Consecutive mutually consistent outliers after which the anchor moves (default 3).
    public var reanchorAfter: Int

    /// Creates a configuration.
    /// - Throws: `TrackingError.invalidConfiguration` for a limit that is not positive.
    public init(
      maximumSpeedMetersPerSecond: Double = 100, maximumHorizontalAccuracyMeters: Double? = nil,
      mergesEpochs: Bool = true, reanchorAfter: Int = 3
    ) throws(TrackingError) {
      guard maximumSpeedMetersPerSecond.isFinite, maximumSpeedMetersPerSecond > 0 else {
        throw .invalidConfiguration(
          "maximum speed \(maximumSpeedMetersPerSecond) m/s: must be a finite number > 0")
      }
      if let limit = maximumHorizontalAccuracyMeters, !(limit.isFinite && limit > 0) {
        throw .invalidConfiguration("accuracy limit \(limit) m: must be a finite number > 0")
      }
      guard reanchorAfter >= 1 else {
        throw .invalidConfiguration("reanchor count \(reanchorAfter): must be >= 1")
      }
      self.maximumSpeedMetersPerSecond = maximumSpeedMetersPerSecond
      self.maximumHorizontalAccuracyMeters = maximumHorizontalAccuracyMeters
      self.mergesEpochs = mergesEpochs
      self.reanchorAfter = reanchorAfter
    }

    /// The defaults: 100 m/s, no accuracy limit, epochs merged, re-anchor after 3.
    public static let standard: Configuration = try! Configuration()
  }

  /// The configuration in use.
  public let configuration: Configuration
  /// Counts so far.
  public private(set) var summary = CleaningSummary()
  /// The last accepted fix: the anchor for the order and outlier checks.
  public private(set) var anchor: Fix?

  private var pending: Fix?
  private var lastRejectedOutlier: Fix?
  private var consistentOutliers = 0

  /// Creates a cleaner; `anchor` resumes after a restart (the last fix accepted before it).
  public init(configuration: Configuration = .standard, anchor: Fix? = nil) {
    self.configuration = configuration
    self.anchor = anchor
  }

  /// Takes one raw report and returns the clean fix it releases, if any.
  ///
  /// With epoch merging the returned fix is the *previous* epoch's, completed by this report.
  /// - Complexity: O(1), one great-circle distance at most.
  public mutating func ingest(_ report: Fix) -> Fix? {
    summary.reports += 1
    if let reason = Self.invalidity(of: report) {
      summary.rejected[reason, default: 0] += 1
      return nil
    }
    guard configuration.mergesEpochs else { return check(report) }
    guard let current = pending else {
      pending = report
      return nil
    }
    if current.time == report.time {
      if current == report {
        summary.rejected[.duplicate, default: 0] += 1
      } else {
        summary.merged += 1
        pending = Self.merge(current, report)
      }
      return nil
    }
    pending = report
    return check(current)
  }

  /// Releases the epoch still held back (at the end of the input), if it passes the checks.
  public mutating func flush() -> Fix? {
    guard let current = pending else { return nil }
    pending = nil
    return check(current)
  }

  /// Drops the held-back epoch without judging it (when tracking stops).
  public mutating func discardPending() { pending = nil }

  /// Whether a report is held back waiting for its epoch to complete.
  public var hasPending: Bool { pending != nil }

  /// Why `fix` is no position at all (no fix, out of range, exact (0, 0)), or nil.
  public static func invalidity(of fix: Fix) -> RejectionReason? {
    if fix.mode == .noFix { return .noFix }
    let lat = fix.coordinate.latitude
    let lon = fix.coordinate.longitude
    guard lat.isFinite, lon.isFinite, abs(lat) <= 90, abs(lon) <= 180 else {
      return .invalidPosition
    }
    if lat == 0 && lon == 0 { return .invalidPosition }
    guard fix.time.timeIntervalSinceReferenceDate.isFinite else { return .invalidPosition }
    return nil
  }

  /// One fix from two reports of one epoch: the position of the better fix mode (the first on
  /// a tie), every optional field from the first report that has it.
  static func merge(_ first: Fix, _ second: Fix) -> Fix {
    var merged = second.mode > first.mode ? second : first
    let other = second.mode > first.mode ? first : second
    if merged.altitudeMeters == nil { merged.altitudeMeters = other.altitudeMeters }
    if merged.horizontalAccuracyMeters == nil {
      merged.horizontalAccuracyMeters = other.horizontalAccuracyMeters
    }
    if merged.speedMetersPerSecond == nil {
      merged.speedMetersPerSecond = other.speedMetersPerSecond
    }
    if merged.courseDegrees == nil { merged.courseDegrees = other.courseDegrees }
    if merged.satellitesUsed == nil { merged.satellitesUsed = other.satellitesUsed }
    return merged
  }

  private mutating func check(_ fix: Fix) -> Fix? {
    if let anchor {
      let dt = fix.time.timeIntervalSince(anchor.time)
      if dt <= 0 {
        summary.rejected[dt == 0 ? .duplicate : .outOfOrder, default: 0] += 1
        return nil
      }
      let limit = configuration.maximumSpeedMetersPerSecond * dt
      // cos φ ≤ 1 gives a bound without trigonometry; the haversine only when it is needed.
      let certainlyWithin =
        anchor.coordinate.distanceUpperBound(to: fix.coordinate, cosLatitude: 1) <= limit
      if !certainlyWithin && anchor.coordinate.distance(to: fix.coordinate) > limit
        && !confirmsOutlierRun(fix)
      {
        summary.rejected[.outlier, default: 0] += 1
        return nil
      }
    }
    if let limit = configuration.maximumHorizontalAccuracyMeters,
      let accuracy = fix.horizontalAccuracyMeters, accuracy > limit
    {
      summary.rejected[.accuracy, default: 0] += 1
      return nil
    }
    anchor = fix
    lastRejectedOutlier = nil
    consistentOutliers = 0
    summary.accepted += 1
    return fix
  }

  /// Counts `fix` into the run of mutually consistent outliers; true when the run is long
  /// enough to move the anchor.
  private mutating func confirmsOutlierRun(_ fix: Fix) -> Bool {
    if let previous = lastRejectedOutlier {
      let dt = fix.time.timeIntervalSince(previous.time)
      let consistent =
        dt > 0
        && previous.coordinate.distance(to: fix.coordinate)
          <= configuration.maximumSpeedMetersPerSecond * dt
      consistentOutliers = consistent ? consistentOutliers + 1 : 1
    } else {
      consistentOutliers = 1
    }
    lastRejectedOutlier = fix
    return consistentOutliers > configuration.reanchorAfter
  }
}
