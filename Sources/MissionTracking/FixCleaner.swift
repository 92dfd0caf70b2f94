import Foundation

/// Cleans raw position reports before the tracker sees them, in the order DESIGN.md §2 gives:
///
/// 1. reject invalid reports (mode no fix, a position out of range or not finite, exactly
///    (0, 0)), and reports dated more than `maximumFutureSeconds` (one day) ahead of now
///    (`future`: year 9999, a receiver's bad date), which would otherwise become the last
///    accepted time and make every later fix look late;
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
///
/// **Now.** The future check compares with `Configuration.now` when set (tests, and callers
/// that inject a clock), else with the wall clock, read only when a fix is later than the
/// last reading plus the tolerance (so the check costs one comparison per fix). A recorded
/// trace is in the past, so replaying it judges the same whenever it runs; only its order and
/// speed checks use the trace's own clock.
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
    /// How far ahead of now a fix may be dated, seconds (default 86 400, one day); later ones
    /// are rejected as `future`. Nil disables the check.
    public var maximumFutureSeconds: Double?
    /// The time the future check compares with; nil (the default) reads the wall clock.
    public var now: Date?

    /// Creates a configuration.
    /// - Parameters:
    ///   - maximumSpeedMetersPerSecond: Implied speed above which a fix is an outlier.
    ///   - maximumHorizontalAccuracyMeters: Accuracy limit, or nil for none.
    ///   - mergesEpochs: Whether reports with the same fix time are merged.
    ///   - reanchorAfter: Consistent outliers after which the anchor moves.
    ///   - maximumFutureSeconds: How far ahead of `now` a fix may be, or nil for no check.
    ///   - now: The reference time of the future check; nil for the wall clock.
    /// - Throws: `TrackingError.invalidConfiguration` for a limit that is not positive.
    public init(
      maximumSpeedMetersPerSecond: Double = 100, maximumHorizontalAccuracyMeters: Double? = nil,
      mergesEpochs: Bool = true, reanchorAfter: Int = 3, maximumFutureSeconds: Double? = 86_400,
      now: Date? = nil
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
      if let limit = maximumFutureSeconds, !(limit.isFinite && limit >= 0) {
        throw .invalidConfiguration("future limit \(limit) s: must be a finite number >= 0")
      }
      if let now, !now.timeIntervalSinceReferenceDate.isFinite {
        throw .invalidConfiguration("reference time \(now): must be finite")
      }
      self.init(
        checkedSpeed: maximumSpeedMetersPerSecond, accuracy: maximumHorizontalAccuracyMeters,
        mergesEpochs: mergesEpochs, reanchorAfter: reanchorAfter,
        future: maximumFutureSeconds, now: now)
    }

    /// Stores values already known to be valid (no trap on any path).
    private init(
      checkedSpeed: Double, accuracy: Double?, mergesEpochs: Bool, reanchorAfter: Int,
      future: Double?, now: Date?
    ) {
      maximumSpeedMetersPerSecond = checkedSpeed
      maximumHorizontalAccuracyMeters = accuracy
      self.mergesEpochs = mergesEpochs
      self.reanchorAfter = reanchorAfter
      maximumFutureSeconds = future
      self.now = now
    }

    /// The defaults: 100 m/s, no accuracy limit, epochs merged, re-anchor after 3, fixes at
    /// most one day ahead of the wall clock.
    public static let standard = Configuration(
      checkedSpeed: 100, accuracy: nil, mergesEpochs: true, reanchorAfter: 3, future: 86_400,
      now: nil)
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
  /// Now plus the future tolerance at the last reading of the clock: fixes up to it pass
  /// without reading the clock again.
  private var futureHorizon = Date.distantPast

  /// Creates a cleaner; `anchor` resumes after a restart (the last fix accepted before it).
  /// An anchor dated beyond the future limit (stored by an older version) is not resumed, so
  /// it cannot block the mission.
  public init(configuration: Configuration = .standard, anchor: Fix? = nil) {
    self.configuration = configuration
    if let anchor, !isTooFarAhead(anchor) { self.anchor = anchor }
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
    if isTooFarAhead(report) {
      summary.rejected[.future, default: 0] += 1
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

  /// Whether `fix` is dated more than the tolerance ahead of now. Reads the clock only when
  /// the fix is past the horizon of the last reading.
  private mutating func isTooFarAhead(_ fix: Fix) -> Bool {
    guard let tolerance = configuration.maximumFutureSeconds else { return false }
    if fix.time <= futureHorizon { return false }
    futureHorizon = (configuration.now ?? Date()).addingTimeInterval(tolerance)
    return fix.time > futureHorizon
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
