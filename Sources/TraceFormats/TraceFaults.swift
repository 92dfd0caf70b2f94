/// The faults `TraceMutator` injects into a trace, and the seed that makes them repeatable.
///
/// Every fault is off by default. Each asks one question of the code under test:
///
/// - `noiseSigmaMeters`: Gaussian position noise, σ metres on each of north and east. Does
///   a walk with 5 m noise still arrive exactly once, without a spurious exit at the fence
///   edge, and does jitter stay out of the travelled distance?
/// - `dropoutProbability`: each fix is lost with this probability. Does arrival survive a
///   sparse trace, and are `crossed` passes still reported?
/// - `outages`: time windows with no fix at all (a tunnel). Is the gap reported, and is a
///   fence crossed during it reported as `crossed`?
/// - `jumpMeters` every `jumpEvery` fixes: one fix displaced that far in a random direction
///   (multipath, a bad solution). Are outliers rejected without moving the anchor or firing
///   enter/exit?
/// - `duplicateProbability`: a fix is delivered twice in a row (a re-sent report). Is it
///   merged or dropped and counted, never delivered twice? (NMEA and gpsd-JSON readers
///   already merge a repeated epoch, as gpsd does; GPX keeps both points.)
/// - `reorderProbability`: a fix arrives after the next one. Is the late fix dropped and
///   counted, never moving the position backwards?
///
/// The same faults, seed and input give the same output, bit for bit. Each fault draws from
/// its own random stream, one draw per input fix whether or not the fix survives, so
/// turning one fault on or off does not change what the others do.
public struct TraceFaults: Sendable, Hashable {
  /// Standard deviation of the position noise in metres, on each of north and east
  /// (0 = none). The noise is a 2D Gaussian: its RMS radius is σ·√2.
  public var noiseSigmaMeters: Double
  /// Probability in [0, 1] that a fix is dropped.
  public var dropoutProbability: Double
  /// Windows in which every fix is removed.
  public var outages: [TraceOutage]
  /// Distance in metres of an outlier jump (0 = none).
  public var jumpMeters: Double
  /// Every `jumpEvery`-th fix of the input (the N-th, 2N-th, …) jumps; 0 = none.
  public var jumpEvery: Int
  /// Probability in [0, 1] that a fix is delivered twice in a row.
  public var duplicateProbability: Double
  /// Probability in [0, 1] that a fix is delivered after the fix that follows it.
  public var reorderProbability: Double
  /// The seed of every random choice.
  public var seed: UInt64

  /// Creates a fault configuration; every fault is off unless given.
  public init(
    noiseSigmaMeters: Double = 0, dropoutProbability: Double = 0, outages: [TraceOutage] = [],
    jumpMeters: Double = 0, jumpEvery: Int = 0, duplicateProbability: Double = 0,
    reorderProbability: Double = 0, seed: UInt64 = 1
  ) {
    self.noiseSigmaMeters = noiseSigmaMeters
    self.dropoutProbability = dropoutProbability
    self.outages = outages
    self.jumpMeters = jumpMeters
    self.jumpEvery = jumpEvery
    self.duplicateProbability = duplicateProbability
    self.reorderProbability = reorderProbability
    self.seed = seed
  }

  /// Whether no fault is on: the mutator then passes fixes through unchanged.
  public var isEmpty: Bool {
    noiseSigmaMeters == 0 && dropoutProbability == 0 && outages.isEmpty && !jumps
      && duplicateProbability == 0 && reorderProbability == 0
  }

  /// Whether outlier jumps are on.
  var jumps: Bool { jumpMeters > 0 && jumpEvery > 0 }

  /// Checks every value: σ and the jump distance finite and ≥ 0, probabilities in [0, 1],
  /// `jumpEvery` ≥ 0, outages valid.
  /// - Throws: `TraceError` naming the first bad value.
  public func validate() throws(TraceError) {
    guard noiseSigmaMeters.isFinite, noiseSigmaMeters >= 0 else {
      throw TraceError(reason: "noise sigma must be a finite number of metres >= 0")
    }
    for (name, value) in [
      ("dropout", dropoutProbability), ("duplicate", duplicateProbability),
      ("reorder", reorderProbability),
    ] where !(0...1).contains(value) {
      throw TraceError(reason: "\(name) probability must be in [0, 1], got \(value)")
    }
    guard jumpMeters.isFinite, jumpMeters >= 0 else {
      throw TraceError(reason: "jump distance must be a finite number of metres >= 0")
    }
    guard jumpEvery >= 0 else {
      throw TraceError(reason: "jump interval must be a number of fixes >= 0")
    }
    for outage in outages { try outage.validate() }
  }
}
