import MissionTracking

/// What `record(_:)` accepted and has not committed yet: the group-commit buffer.
struct EventBatch {
  /// A fence state to store: the tracked mission, the fence, the state and when (µs).
  struct FenceRow {
    var missionID: String
    var fenceID: String
    var state: FenceState
    var updated: Int64
  }

  /// The pending events in arrival order.
  private(set) var events: [TrackingEvent] = []
  /// The latest state of each fence the pending batches changed, by "mission\0fence".
  private(set) var fences: [String: FenceRow] = [:]
  /// The travelled distance each pending batch left, by tracked mission (metres, µs).
  private(set) var travelled: [String: (meters: Double, updated: Int64)] = [:]
  /// Bumped on every commit, so a timer armed for an older batch leaves a newer one alone.
  private(set) var generation = 0

  var isEmpty: Bool { events.isEmpty && fences.isEmpty && travelled.isEmpty }
  var count: Int { events.count }

  /// The missions the pending rows belong to.
  private(set) var missionIDs: Set<String> = []
  /// The mission last added to `missionIDs`, so a run of one mission's events hashes its id
  /// once.
  private var lastMissionID: String?

  private mutating func note(_ id: String) {
    if id == lastMissionID { return }
    missionIDs.insert(id)
    lastMissionID = id
  }

  /// Adds a tracker batch; returns true when it starts a new buffer (arm the timer).
  mutating func append(_ batch: TrackingBatch, time: Int64) -> Bool {
    let first = isEmpty
    events.append(contentsOf: batch.events)
    note(batch.missionID)
    for event in batch.events where event.missionID != batch.missionID { note(event.missionID) }
    for (fence, state) in batch.fenceStates {
      fences[batch.missionID + "\u{0}" + fence] = FenceRow(
        missionID: batch.missionID, fenceID: fence, state: state, updated: time)
    }
    if !batch.events.isEmpty || !batch.fenceStates.isEmpty {
      travelled[batch.missionID] = (batch.travelledMeters, time)
    }
    return first
  }

  /// Adds events that carry no fence state or distance (tests, benchmarks).
  mutating func append(events added: some Sequence<TrackingEvent>) -> Bool {
    let first = isEmpty
    for event in added {
      events.append(event)
      note(event.missionID)
    }
    return first
  }

  /// Takes the pending rows for a commit and leaves an empty buffer of a new generation
  /// (a timer armed for the rows taken leaves the next ones alone); nil when nothing is
  /// pending.
  mutating func take() -> EventBatch? {
    guard !isEmpty else { return nil }
    let taken = self
    self = EventBatch()
    generation = taken.generation &+ 1
    return taken
  }

  /// Puts back `older`, taken by a commit that failed, ahead of what was added since: its
  /// events first, and its fence states and distances where nothing newer replaced them.
  mutating func restore(_ older: EventBatch) {
    var merged = older
    merged.events.append(contentsOf: events)
    merged.fences.merge(fences) { _, newer in newer }
    merged.travelled.merge(travelled) { _, newer in newer }
    merged.missionIDs.formUnion(missionIDs)
    merged.lastMissionID = nil
    merged.generation = generation
    self = merged
  }
}
