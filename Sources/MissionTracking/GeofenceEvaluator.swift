import Foundation

/// Decides geofence transitions from clean fixes, for the active mission's fence and any
/// other fences near the worker.
///
/// It sees every clean fix, before the distance filter, so a stationary worker still arrives
/// and dwells. Per fence (DESIGN.md §2):
/// - **enter** when the distance is at most the radius and the horizontal accuracy, if known,
///   is at most the radius; `initial` when it is the first fix after tracking started;
/// - **exit** only when the distance exceeds radius + exit margin (hysteresis);
/// - **dwell** once per stay, when inside for `dwellSeconds` of fix time;
/// - **crossed** when neither the previous nor the current fix is within the radius but the
///   great-circle segment between them comes within it (closest approach by cross-track and
///   along-track distance, `Coordinate.closestApproach`); the event's time is interpolated
///   linearly to the closest point.
///
/// Events of one fix come in a fixed order: crossed (by time, then fence id), exits, enters,
/// dwells, each group sorted by fence id — so leaving A and entering B with one fix gives A's
/// exit before B's enter. State survives restarts through `FenceState`: a fence resumed inside
/// gives no second enter.
///
/// Fences other than the primary one are prefiltered: fences are kept sorted by the southern
/// edge of their bounding box, and only those whose box overlaps the box of the segment from
/// the previous fix are measured (plus the fences the worker is inside, which need the exit
/// check). Segments that are long (> ~10 km), cross the antimeridian or lie above 85° of
/// latitude measure every fence.
public struct GeofenceEvaluator: Sendable {
  /// Time thresholds of the evaluator.
  public struct Configuration: Sendable, Hashable {
    /// Continuous time inside (fix time) before the one `dwell` event, seconds (default 60).
    public var dwellSeconds: Double

    /// Creates a configuration.
    /// - Throws: `TrackingError.invalidConfiguration` for a negative or non-finite time.
    public init(dwellSeconds: Double = 60) throws(TrackingError) {
      guard dwellSeconds.isFinite, dwellSeconds >= 0 else {
        throw .invalidConfiguration("dwell time \(dwellSeconds) s: must be a finite number >= 0")
      }
      self.dwellSeconds = dwellSeconds
    }

    /// A value already known to be valid (the defaults).
    private init(validDwellSeconds: Double) { dwellSeconds = validDwellSeconds }

    /// The defaults: 60 s dwell.
    public static let standard = Configuration(validDwellSeconds: 60)
  }

  struct Slot: Sendable {
    var fence: Geofence
    var south: Double
    var north: Double
    var west: Double
    var east: Double
    var state: FenceState
  }

  /// A fence's bounding box, kept apart from the slots so that the prefilter scans 32-byte
  /// records.
  struct Box: Sendable {
    var south: Double
    var north: Double
    var west: Double
    var east: Double
  }

  /// Padding of fence boxes, metres: covers the poleward bulge of a great circle of up to
  /// ~1 km against the straight line in latitude/longitude (L²/8R · tan φ ≤ 0.25 m up to
  /// 85° of latitude) and rounding.
  static let boxPaddingMeters: Double = 1
  /// Segments longer than this in degrees (about 1 km) skip the prefilter.
  static let longSegmentDegrees: Double = 0.009

  /// The mission whose events these are.
  public let missionID: String
  /// The fence of the active mission.
  public let primary: Geofence
  /// The configuration in use.
  public let configuration: Configuration

  /// Measure every fence on every fix (the naive baseline of the benchmark and the model of
  /// the property tests).
  package var usesPrefilter = true

  private var slots: [Slot] = []
  private var boxes: [Box] = []
  /// The evaluation number that last measured each slot: measured at most once per fix.
  private var stamps: [UInt64] = []
  private var primaryIndex = 0
  private var alwaysChecked: [Int] = []
  /// Stored states of fences not held at the moment (resumed before the fence came near,
  /// or dropped from the neighbourhood): given back when the fence is held again, so that
  /// a restart or a detour never enters a fence twice.
  private var parkedStates: [String: FenceState] = [:]
  private var inside: [Int] = []
  private var maxBoxHeight: Double = 0
  private var stamp: UInt64 = 0
  private var previous: Fix?
  private var isResumed: Bool
  private var lastPrimaryDistance: Double = .nan
  private var crossedBuffer: [TrackingEvent] = []
  private var exitBuffer: [TrackingEvent] = []
  private var enterBuffer: [TrackingEvent] = []
  private var dwellBuffer: [TrackingEvent] = []

  /// Creates an evaluator for `primary` (the active mission's fence) and `others`.
  ///
  /// - Parameters:
  ///   - missionID: The active mission, stamped on every event.
  ///   - primary: The active mission's fence; always measured.
  ///   - others: Fences of other missions near the worker.
  ///   - states: Stored fence states to resume from (by fence id); with any state given the
  ///     first fix is not treated as the start of tracking (no `initial` enter).
  ///   - configuration: Dwell time.
  public init(
    missionID: String, primary: Geofence, others: [Geofence] = [],
    states: [String: FenceState] = [:], configuration: Configuration = .standard
  ) {
    self.missionID = missionID
    self.primary = primary
    self.configuration = configuration
    self.isResumed = !states.isEmpty
    rebuild(fences: [primary] + others, states: states)
  }

  /// The current state of every fence, by id.
  public var states: [String: FenceState] {
    var result: [String: FenceState] = [:]
    for slot in slots { result[slot.fence.id] = slot.state }
    return result
  }

  /// The state of fence `id`, or nil when the evaluator does not hold it.
  public func state(of id: String) -> FenceState? {
    slots.first { $0.fence.id == id }?.state
  }

  /// The fences held, primary included, in no particular order.
  public var fences: [Geofence] { slots.map(\.fence) }

  /// The distance from `fix`, the last evaluated fix, to the primary fence's centre, metres:
  /// the one already measured when the fix was near the fence, else computed now.
  public func distanceToPrimary(from fix: Fix) -> Double {
    if stamps[primaryIndex] == stamp, previous == fix { return lastPrimaryDistance }
    return primary.center.distance(to: fix.coordinate)
  }

  /// The last clean fix evaluated.
  public var previousFix: Fix? { previous }

  /// Replaces the other fences with `others`, keeping the primary fence, the state of every
  /// fence that stays, and every fence the worker is inside (so it can still exit).
  /// - Complexity: O(n log n) in the number of fences.
  public mutating func replaceOtherFences(_ others: [Geofence]) {
    var keep: [Geofence] = [primary]
    var states = parkedStates
    for slot in slots where slot.state != FenceState() { states[slot.fence.id] = slot.state }
    var seen: Set<String> = [primary.id]
    for fence in others where seen.insert(fence.id).inserted { keep.append(fence) }
    for slot in slots where slot.state.isInside && seen.insert(slot.fence.id).inserted {
      keep.append(slot.fence)
    }
    rebuild(fences: keep, states: states)
  }

  private mutating func rebuild(fences: [Geofence], states: [String: FenceState]) {
    var built: [Slot] = []
    var always: [Int] = []
    built.reserveCapacity(fences.count)
    for fence in fences {
      let radius = fence.radiusMeters + GeofenceEvaluator.boxPaddingMeters
      let box = try? fence.center.boundingBox(radiusMeters: radius)
      let slot = Slot(
        fence: fence, south: box?.south ?? -90, north: box?.north ?? 90, west: box?.west ?? -180,
        east: box?.east ?? 180, state: states[fence.id] ?? FenceState())
      built.append(slot)
    }
    built.sort { $0.south < $1.south || ($0.south == $1.south && $0.fence.id < $1.fence.id) }
    var height: Double = 0
    var insideIndices: [Int] = []
    for (index, slot) in built.enumerated() {
      if slot.west > slot.east || slot.west == -180 || slot.east == 180 || slot.north >= 90
        || slot.south <= -90
      {
        always.append(index)
      }
      height = max(height, slot.north - slot.south)
      if slot.state.isInside { insideIndices.append(index) }
      if slot.fence.id == primary.id { primaryIndex = index }
    }
    var held: Set<String> = []
    for slot in built { held.insert(slot.fence.id) }
    parkedStates = states.filter { !held.contains($0.key) && $0.value != FenceState() }
    slots = built
    boxes = built.map { Box(south: $0.south, north: $0.north, west: $0.west, east: $0.east) }
    stamps = Array(repeating: 0, count: built.count)
    alwaysChecked = always
    inside = insideIndices
    maxBoxHeight = height
  }

  /// Evaluates one clean fix and appends its events to `events` in the documented order.
  ///
  /// - Returns: How many of the appended events are `crossed` events (they come first and
  ///   happened before `fix`), so that a caller can put the fix's own event after them.
  /// - Complexity: O(log n + k) for n fences and k candidates near the segment.
  @discardableResult
  public mutating func evaluate(_ fix: Fix, into events: inout [TrackingEvent]) -> Int {
    stamp &+= 1
    let current = fix.coordinate
    let start = previous?.coordinate
    var segmentMeters = -1.0
    if usesPrefilter && !needsFullScan(current, start) {
      let low = min(current.latitude, start?.latitude ?? current.latitude)
      let high = max(current.latitude, start?.latitude ?? current.latitude)
      let west = min(current.longitude, start?.longitude ?? current.longitude)
      let east = max(current.longitude, start?.longitude ?? current.longitude)
      var index = firstSlot(withSouthAtLeast: low - maxBoxHeight)
      while index < boxes.count {
        let box = boxes[index]
        if box.south > high { break }
        if box.north >= low && box.west <= east && box.east >= west && stamps[index] != stamp {
          measure(index, fix, start, &segmentMeters)
        }
        index += 1
      }
      for index in alwaysChecked where stamps[index] != stamp {
        measure(index, fix, start, &segmentMeters)
      }
      // An exit removes the fence from `inside` while we walk it: stay at the same position.
      var i = 0
      while i < inside.count {
        let index = inside[i]
        let count = inside.count
        if stamps[index] != stamp { measure(index, fix, start, &segmentMeters) }
        if inside.count == count { i += 1 }
      }
    } else {
      for index in slots.indices where stamps[index] != stamp {
        measure(index, fix, start, &segmentMeters)
      }
    }
    previous = fix
    isResumed = false
    let crossedCount = crossedBuffer.count
    flush(&crossedBuffer, into: &events, byTime: true)
    flush(&exitBuffer, into: &events, byTime: false)
    flush(&enterBuffer, into: &events, byTime: false)
    flush(&dwellBuffer, into: &events, byTime: false)
    return crossedCount
  }

  private func needsFullScan(_ current: Coordinate, _ start: Coordinate?) -> Bool {
    if abs(current.latitude) > 85 { return true }
    guard let start else { return false }
    return abs(start.latitude) > 85
      || abs(start.latitude - current.latitude) > GeofenceEvaluator.longSegmentDegrees
      || abs(start.longitude - current.longitude) > GeofenceEvaluator.longSegmentDegrees
  }

  private func firstSlot(withSouthAtLeast south: Double) -> Int {
    var low = 0
    var high = slots.count
    while low < high {
      let mid = (low + high) / 2
      if boxes[mid].south < south { low = mid + 1 } else { high = mid }
    }
    return low
  }

  private mutating func measure(
    _ index: Int, _ fix: Fix, _ start: Coordinate?, _ segmentMeters: inout Double
  ) {
    stamps[index] = stamp
    let fence = slots[index].fence
    let distance = fence.center.distance(to: fix.coordinate)
    if index == primaryIndex { lastPrimaryDistance = distance }
    if slots[index].state.isInside {
      if distance > fence.exitDistanceMeters {
        slots[index].state = FenceState()
        if let position = inside.firstIndex(of: index) { inside.remove(at: position) }
        exitBuffer.append(event(fix.time, .exit(fenceID: fence.id, distanceMeters: distance)))
      } else if !slots[index].state.dwellReported, let since = slots[index].state.insideSince {
        let stayed = fix.time.timeIntervalSince(since)
        if stayed >= configuration.dwellSeconds {
          slots[index].state.dwellReported = true
          dwellBuffer.append(event(fix.time, .dwell(fenceID: fence.id, dwellSeconds: stayed)))
        }
      }
      return
    }
    if distance <= fence.radiusMeters {
      if let accuracy = fix.horizontalAccuracyMeters, !(accuracy <= fence.radiusMeters) { return }
      let initial = previous == nil && !isResumed
      slots[index].state = FenceState(isInside: true, insideSince: fix.time)
      inside.append(index)
      enterBuffer.append(
        event(fix.time, .enter(fenceID: fence.id, distanceMeters: distance, initial: initial)))
      if configuration.dwellSeconds == 0 {
        slots[index].state.dwellReported = true
        dwellBuffer.append(event(fix.time, .dwell(fenceID: fence.id, dwellSeconds: 0)))
      }
      return
    }
    guard let start, let startTime = previous?.time else { return }
    let startDistance = fence.center.distance(to: start)
    guard startDistance > fence.radiusMeters else { return }
    if segmentMeters < 0 { segmentMeters = start.distance(to: fix.coordinate) }
    // Triangle inequality: no point of the segment is nearer than this.
    guard (startDistance + distance - segmentMeters) / 2 <= fence.radiusMeters else { return }
    let approach = fence.center.closestApproach(onSegmentFrom: start, to: fix.coordinate)
    guard approach.distanceMeters <= fence.radiusMeters else { return }
    let time = startTime + approach.fraction * fix.time.timeIntervalSince(startTime)
    crossedBuffer.append(
      event(time, .crossed(fenceID: fence.id, closestDistanceMeters: approach.distanceMeters)))
  }

  private func event(_ time: Date, _ kind: TrackingEvent.Kind) -> TrackingEvent {
    TrackingEvent(time: time, missionID: missionID, kind: kind)
  }

  private func flush(
    _ buffer: inout [TrackingEvent], into events: inout [TrackingEvent], byTime: Bool
  ) {
    if buffer.isEmpty { return }
    if buffer.count > 1 {
      buffer.sort { a, b in
        if byTime && a.time != b.time { return a.time < b.time }
        return (a.fenceID ?? "") < (b.fenceID ?? "")
      }
    }
    events.append(contentsOf: buffer)
    buffer.removeAll(keepingCapacity: true)
  }
}
