import Foundation

/// The pure tracking pipeline of one active mission: clean → geofence → distance filter.
///
/// Every raw fix goes through `FixCleaner`; every clean fix through the `GeofenceEvaluator`
/// (before the distance filter, so a stationary worker still arrives and dwells) and then the
/// `DistanceFilter`, which decides whether it is delivered. A delivered fix becomes a `fix`
/// event carrying the distance to the mission and the distance travelled. No I/O, no clock:
/// time is the fixes' own, so a replay is deterministic.
///
/// Events of one clean fix, in order: `crossed` (interpolated times, before the fix), a
/// `source` `gap` event when the fix comes more than `gapSeconds` after the previous clean
/// fix, the `fix` event when delivered, then `exit`, `enter`, `dwell` (each by fence id).
public struct TrackingPipeline: Sendable {
  /// Settings of every stage.
  public struct Configuration: Sendable, Hashable {
    /// Cleaning limits.
    public var cleaner: FixCleaner.Configuration
    /// Minimum distance between delivered fixes, metres (default 10).
    public var distanceFilterMeters: Double
    /// Geofence timing.
    public var geofence: GeofenceEvaluator.Configuration
    /// Fix-time interval between clean fixes above which a `gap` event is emitted, seconds
    /// (default 10).
    public var gapSeconds: Double

    /// Creates a configuration.
    /// - Throws: `TrackingError.invalidConfiguration` for a negative or non-finite distance
    ///   or gap.
    public init(
      cleaner: FixCleaner.Configuration = .standard,
      distanceFilterMeters: Double = DistanceFilter.defaultMinimumDistanceMeters,
      geofence: GeofenceEvaluator.Configuration = .standard, gapSeconds: Double = 10
    ) throws(TrackingError) {
      guard distanceFilterMeters.isFinite, distanceFilterMeters >= 0 else {
        throw .invalidConfiguration(
          "distance filter \(distanceFilterMeters) m: must be a finite number >= 0")
      }
      guard gapSeconds.isFinite, gapSeconds > 0 else {
        throw .invalidConfiguration("gap \(gapSeconds) s: must be a finite number > 0")
      }
      self.cleaner = cleaner
      self.distanceFilterMeters = distanceFilterMeters
      self.geofence = geofence
      self.gapSeconds = gapSeconds
    }

    /// Values already known to be valid (the defaults).
    private init(
      validCleaner cleaner: FixCleaner.Configuration, distanceFilterMeters: Double,
      geofence: GeofenceEvaluator.Configuration, gapSeconds: Double
    ) {
      self.cleaner = cleaner
      self.distanceFilterMeters = distanceFilterMeters
      self.geofence = geofence
      self.gapSeconds = gapSeconds
    }

    /// The defaults: 100 m/s outliers, 10 m filter, 60 s dwell, 10 s gap.
    public static let standard = Configuration(
      validCleaner: .standard, distanceFilterMeters: DistanceFilter.defaultMinimumDistanceMeters,
      geofence: .standard, gapSeconds: 10)
  }

  /// What a restarted pipeline needs to continue without duplicate events.
  public struct Resume: Sendable, Hashable {
    /// Stored fence states by fence id.
    public var fenceStates: [String: FenceState]
    /// The last delivered fix: the distance filter's reference and the cleaner's anchor.
    public var lastDelivered: Fix?
    /// The distance travelled so far, metres.
    public var travelledMeters: Double
    /// How many batches of the session the store holds: the version the next batch follows
    /// (`TrackingBatch.basedOnVersion`); 0 on a store that does not count them.
    public var version: Int64

    /// Creates resume data.
    public init(
      fenceStates: [String: FenceState], lastDelivered: Fix? = nil, travelledMeters: Double = 0,
      version: Int64 = 0
    ) {
      self.fenceStates = fenceStates
      self.lastDelivered = lastDelivered
      self.travelledMeters = travelledMeters
      self.version = version
    }
  }

  /// The mission being tracked.
  public let mission: Mission
  /// The configuration in use.
  public let configuration: Configuration
  /// The cleaner, with its counts.
  public private(set) var cleaner: FixCleaner
  /// The distance filter, with the travelled distance.
  public private(set) var filter: DistanceFilter
  /// The geofence evaluator, with the fence states.
  public private(set) var geofence: GeofenceEvaluator
  private var lastClean: Fix?
  private var lastReportTime: Date?

  /// Creates the pipeline for `mission`, optionally resuming from stored state.
  /// - Parameters:
  ///   - mission: The active mission; its fence is the primary fence.
  ///   - nearbyFences: Fences of other missions to evaluate as well.
  ///   - configuration: Settings of every stage.
  ///   - resume: Stored state after a restart; nil for a fresh start.
  public init(
    mission: Mission, nearbyFences: [Geofence] = [], configuration: Configuration = .standard,
    resume: Resume? = nil
  ) {
    self.mission = mission
    self.configuration = configuration
    cleaner = FixCleaner(configuration: configuration.cleaner, anchor: resume?.lastDelivered)
    // An invalid distance (set on the configuration's public member) filters nothing.
    filter = DistanceFilter(
      validMinimumDistanceMeters: configuration.distanceFilterMeters.isFinite
        ? max(0, configuration.distanceFilterMeters) : 0,
      lastDelivered: resume?.lastDelivered?.coordinate,
      travelledMeters: resume?.travelledMeters ?? 0)
    var states = resume?.fenceStates ?? [:]
    // A track without fence states: the worker was outside (the first enter is not
    // `initial`). A resume that only counts batches (none delivered a fix) starts fresh.
    if resume?.lastDelivered != nil && states.isEmpty { states[mission.id] = FenceState() }
    geofence = GeofenceEvaluator(
      missionID: mission.id, primary: Geofence(mission: mission), others: nearbyFences,
      states: states, configuration: configuration.geofence)
    lastClean = resume?.lastDelivered
  }

  /// Cleaning counts so far.
  public var summary: CleaningSummary { cleaner.summary }
  /// Distance travelled over delivered fixes, metres.
  public var travelledMeters: Double { filter.travelledMeters }
  /// The state of every fence, by id.
  public var fenceStates: [String: FenceState] { geofence.states }

  /// Feeds one raw fix and appends the events it causes to `events`.
  ///
  /// Because of the epoch merge the events usually belong to the previous report's epoch.
  /// - Complexity: O(log n + k) for n fences, k of them near the worker.
  public mutating func process(_ fix: Fix, into events: inout [TrackingEvent]) {
    lastReportTime = fix.time
    if let clean = cleaner.ingest(fix) { handle(clean, into: &events) }
  }

  /// Ends the input: releases the held-back epoch and appends one `rejected` summary event
  /// per reason with a non-zero count.
  public mutating func finish(into events: inout [TrackingEvent]) {
    if let clean = cleaner.flush() { handle(clean, into: &events) }
    appendRejectionSummary(into: &events)
  }

  /// Releases the held-back epoch now, without ending the input: for reports that are
  /// whole epochs (a phone's position, DESIGN §8), decided when they arrive.
  public mutating func releaseHeldEpoch(into events: inout [TrackingEvent]) {
    if let clean = cleaner.flush() { handle(clean, into: &events) }
  }

  /// Appends one `rejected` event per reason counted so far (time: the latest report's).
  public func appendRejectionSummary(into events: inout [TrackingEvent]) {
    guard let time = lastReportTime ?? lastClean?.time else { return }
    for (reason, count) in summary.rejectionsInOrder {
      events.append(
        TrackingEvent(
          time: time, missionID: mission.id, kind: .rejected(reason: reason.rawValue, count: count)
        ))
    }
  }

  /// Whether the geofence evaluator prefilters fences (off: the benchmark's naive baseline).
  package var usesGeofencePrefilter: Bool {
    get { geofence.usesPrefilter }
    set { geofence.usesPrefilter = newValue }
  }

  /// Replaces the fences of other missions (see `GeofenceEvaluator.replaceOtherFences`).
  public mutating func replaceNearbyFences(_ fences: [Geofence]) {
    geofence.replaceOtherFences(fences)
  }

  private mutating func handle(_ clean: Fix, into events: inout [TrackingEvent]) {
    let base = events.count
    let crossed = geofence.evaluate(clean, into: &events)
    var insertAt = base + crossed
    if let last = lastClean {
      let gap = clean.time.timeIntervalSince(last.time)
      if gap > configuration.gapSeconds {
        let detail = "gap of \(String(format: "%.1f", gap)) s"
        let event = TrackingEvent(
          time: clean.time, missionID: mission.id, kind: .source(.gap, detail: detail))
        events.insert(event, at: insertAt)
        insertAt += 1
      }
    }
    lastClean = clean
    guard filter.deliver(clean.coordinate) != nil else { return }
    let event = TrackingEvent(
      time: clean.time, missionID: mission.id,
      kind: .fix(
        clean, distanceToMissionMeters: geofence.distanceToPrimary(from: clean),
        travelledMeters: filter.travelledMeters))
    events.insert(event, at: insertAt)
  }
}
