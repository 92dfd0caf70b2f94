import Foundation
import MissionProximity
import MissionTracking

/// Injects `TraceFaults` into a stream of fixes, deterministically: the same faults, seed and
/// input give the same output.
///
/// Fixes go in one at a time, in arrival order, and come out with noise, jumps, dropouts,
/// outages, duplicates and reordering applied, in that order for each fix. At most one fix
/// is held back (to be delivered after the next one), so memory is constant and the
/// mutator can sit in front of any live or replayed source.
///
/// ```swift
/// let faults = TraceFaults(noiseSigmaMeters: 5, dropoutProbability: 0.1, seed: 42)
/// let noisy = try TraceMutator.mutate(fixes, with: faults)
/// ```
///
/// Randomness comes from SplitMix64 streams seeded from `faults.seed`, one stream per fault,
/// so that the choices of one fault do not depend on which other faults are on.
public struct TraceMutator: Sendable {
  /// What the mutator did so far.
  public struct Counts: Sendable, Hashable {
    /// Fixes received.
    public var input = 0
    /// Fixes emitted (duplicates included).
    public var output = 0
    /// Fixes removed by the dropout probability.
    public var droppedOut = 0
    /// Fixes removed because they fell in an outage.
    public var inOutage = 0
    /// Fixes displaced by an outlier jump.
    public var jumped = 0
    /// Fixes delivered twice.
    public var duplicated = 0
    /// Fixes delivered after the fix that followed them.
    public var reordered = 0
  }

  /// The faults applied.
  public let faults: TraceFaults
  /// What was done so far.
  public private(set) var counts = Counts()

  private var dropoutRandom: SplitMix64
  private var noiseRandom: SplitMix64
  private var jumpRandom: SplitMix64
  private var duplicateRandom: SplitMix64
  private var reorderRandom: SplitMix64
  private var firstFixTime: Date?
  /// A fix (with its duplicate) waiting to be delivered after the next one.
  private var held: [Fix] = []

  /// Creates a mutator.
  /// - Throws: `TraceError` when a fault value is out of range (see `TraceFaults.validate()`).
  public init(_ faults: TraceFaults) throws(TraceError) {
    try faults.validate()
    self.faults = faults
    var seeds = SplitMix64(seed: faults.seed)
    dropoutRandom = SplitMix64(seed: seeds.next())
    noiseRandom = SplitMix64(seed: seeds.next())
    jumpRandom = SplitMix64(seed: seeds.next())
    duplicateRandom = SplitMix64(seed: seeds.next())
    reorderRandom = SplitMix64(seed: seeds.next())
  }

  /// Mutates a whole sequence of fixes.
  /// - Returns: The fixes as a receiver with these faults would have delivered them.
  /// - Throws: `TraceError` when a fault value is out of range.
  /// - Complexity: O(n).
  public static func mutate(_ fixes: some Sequence<Fix>, with faults: TraceFaults)
    throws(TraceError) -> [Fix]
  {
    var mutator = try TraceMutator(faults)
    var output: [Fix] = []
    output.reserveCapacity(fixes.underestimatedCount)
    for fix in fixes { mutator.mutate(fix, into: &output) }
    mutator.finish(into: &output)
    return output
  }

  /// Takes the next fix and appends what it lets through to `output` (zero, one, two or
  /// three fixes: a held-back fix follows this one).
  /// - Complexity: O(number of outages).
  public mutating func mutate(_ fix: Fix, into output: inout [Fix]) {
    let index = counts.input
    counts.input += 1
    // One draw per stream and input fix, whatever happens to the fix, keeps the streams
    // independent of each other.
    let dropDraw = dropoutRandom.unitInterval()
    let noise = noiseRandom.gaussianPair()
    let jumpBearing = jumpRandom.unitInterval() * 360
    let duplicateDraw = duplicateRandom.unitInterval()
    let reorderDraw = reorderRandom.unitInterval()

    let first = firstFixTime ?? fix.time
    firstFixTime = first
    if faults.outages.contains(where: { $0.contains(fix.time, firstFixTime: first) }) {
      counts.inOutage += 1
      return
    }
    if dropDraw < faults.dropoutProbability {
      counts.droppedOut += 1
      return
    }
    var changed = fix
    if faults.noiseSigmaMeters > 0 {
      let north = noise.0 * faults.noiseSigmaMeters
      let east = noise.1 * faults.noiseSigmaMeters
      changed.coordinate = Self.moved(
        changed.coordinate, bearingDegrees: atan2(east, north) * 180 / .pi,
        meters: (north * north + east * east).squareRoot())
    }
    if faults.jumps && (index + 1) % faults.jumpEvery == 0 {
      changed.coordinate = Self.moved(
        changed.coordinate, bearingDegrees: jumpBearing, meters: faults.jumpMeters)
      counts.jumped += 1
    }
    var unit = [changed]
    if duplicateDraw < faults.duplicateProbability {
      unit.append(changed)
      counts.duplicated += 1
    }
    if !held.isEmpty {
      emit(unit, into: &output)
      emit(held, into: &output)
      held = []
    } else if reorderDraw < faults.reorderProbability {
      held = unit
      counts.reordered += 1
    } else {
      emit(unit, into: &output)
    }
  }

  /// Appends a fix still held back (the last one, when it was to be reordered).
  public mutating func finish(into output: inout [Fix]) {
    guard !held.isEmpty else { return }
    // Nothing came after it: it was not reordered after all.
    counts.reordered -= 1
    emit(held, into: &output)
    held = []
  }

  private mutating func emit(_ fixes: [Fix], into output: inout [Fix]) {
    output.append(contentsOf: fixes)
    counts.output += fixes.count
  }

  /// `coordinate` moved `meters` along `bearingDegrees` (unchanged for a zero distance).
  private static func moved(_ coordinate: Coordinate, bearingDegrees: Double, meters: Double)
    -> Coordinate
  {
    guard meters > 0 else { return coordinate }
    return (try? coordinate.destination(bearingDegrees: bearingDegrees, distanceMeters: meters))
      ?? coordinate
  }
}
