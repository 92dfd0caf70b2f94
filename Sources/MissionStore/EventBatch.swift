import MissionTracking

/// Events accepted by `record(_:)` and not yet committed: the group-commit buffer.
struct EventBatch {
  /// The pending events in arrival order.
  private(set) var events: [TrackingEvent] = []
  /// Bumped on every commit, so a timer armed for an older batch leaves a newer one alone.
  private(set) var generation = 0

  var isEmpty: Bool { events.isEmpty }
  var count: Int { events.count }

  /// Adds an event; returns true when it is the first of a new batch (arm the timer).
  mutating func append(_ event: TrackingEvent) -> Bool {
    events.append(event)
    return events.count == 1
  }

  /// Empties the buffer after a successful commit and starts a new generation.
  mutating func committed() {
    events.removeAll(keepingCapacity: true)
    generation &+= 1
  }
}
