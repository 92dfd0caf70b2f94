/// The delivery rules of one webhook as a pure state machine (swift-nio style): its
/// `mutating` methods take what happened (events read from the outbox, an attempt's
/// outcome, the time) and return the actions to take; it does no I/O and reads no clock.
///
/// Rules (DESIGN §9):
/// - per mission in order: an event is sent only once every earlier event of its mission
///   is delivered or dead; events of other missions (and events of no mission) proceed in
///   parallel, the oldest ready one first;
/// - at most `maximumInFlight` attempts at once;
/// - a failed attempt is retried on the `RetrySchedule`; after the last one the event is
///   dead (reported, and it no longer holds its mission back);
/// - `410 Gone` disables the webhook: every held event is dropped and nothing more is sent;
/// - the cursor is the highest `seq` such that every event up to it is delivered, dead or
///   skipped; it moves only forward, and only when `advanceCursor` says so.
///
/// The driver feeds events in increasing `seq` (a repeat or an older one is ignored), runs
/// each `send`, calls `completed` with the outcome, and calls `tick` at the time of the
/// latest `wake` (a later `wake` replaces an earlier one).
package struct WebhookDispatcher: Sendable {
  /// What the driver does next.
  package enum Action: Sendable, Equatable {
    /// POST this event; `attempt` is 1 for the first try.
    case send(OutboxEvent, attempt: Int)
    /// The event was delivered by attempt `attempt`.
    case delivered(seq: Int64, attempt: Int)
    /// Attempt `attempt` failed for `reason`; the next one is due at `atSeconds`.
    case retryLater(seq: Int64, attempt: Int, reason: String, atSeconds: Double)
    /// The event is dead after `attempts` attempts, the last failing for `reason`.
    case dead(seq: Int64, attempts: Int, reason: String)
    /// Every event up to `seq` is delivered, dead or skipped: store the cursor.
    case advanceCursor(to: Int64)
    /// Call `tick` at `atSeconds` (a retry comes due then).
    case wake(atSeconds: Double)
    /// The receiver answered 410: disable the webhook.
    case disable(reason: String)
  }

  /// The events of one ordering key, oldest first; the head is the one being delivered.
  private struct Lane {
    var events: [OutboxEvent] = []
    var head = 0
    /// Attempts made for the head event.
    var attempts = 0
  }

  /// What orders events: their mission, or (no mission) the event alone.
  private enum LaneKey: Hashable {
    case mission(String)
    case single(Int64)
  }

  /// A lane head waiting to be sent, due at `dueSeconds`; oldest due (then lowest seq) first.
  private struct Due: Comparable {
    var dueSeconds: Double
    var seq: Int64
    var key: LaneKey

    static func < (a: Due, b: Due) -> Bool {
      (a.dueSeconds, a.seq) < (b.dueSeconds, b.seq)
    }
    static func == (a: Due, b: Due) -> Bool { a.seq == b.seq && a.dueSeconds == b.dueSeconds }
  }

  /// The retry schedule.
  package let schedule: RetrySchedule
  /// The most attempts in flight at once.
  package let maximumInFlight: Int
  /// Every event up to this `seq` is delivered, dead or skipped.
  package var cursor: Int64 { outbox.position }
  /// Whether a 410 disabled the webhook.
  package private(set) var isDisabled = false
  /// Attempts sent and not yet completed.
  package private(set) var inFlightCount = 0

  private var lanes: [LaneKey: Lane] = [:]
  private var due = MinHeap<Due>()
  /// The seqs taken in and which of them are finished.
  private var outbox: OutboxCursor
  /// The lane whose head is in flight, by the head's `seq`.
  private var inFlight: [Int64: LaneKey] = [:]

  /// A dispatcher resuming after `cursor` (events up to it were handed over before).
  package init(cursor: Int64, schedule: RetrySchedule = .standard, maximumInFlight: Int = 16) {
    outbox = OutboxCursor(position: cursor)
    self.schedule = schedule
    self.maximumInFlight = max(1, maximumInFlight)
  }

  /// Events taken in and not yet behind the cursor: what the driver holds in memory (it may
  /// stop reading the outbox while this is large).
  package var heldCount: Int { outbox.heldCount }

  /// Takes in `events` read from the outbox at `now` (in increasing `seq`) and sends what
  /// may go.
  package mutating func enqueue(_ events: [OutboxEvent], now: Double) -> [Action] {
    guard !isDisabled else { return [] }
    for event in events where outbox.take(event.seq) {
      let key = event.missionID.map(LaneKey.mission) ?? .single(event.seq)
      if lanes[key].map({ $0.head == $0.events.count }) ?? true {
        due.insert(Due(dueSeconds: now, seq: event.seq, key: key))
      }
      // Appended in place: a copy of the lane would copy its whole queue on every event.
      lanes[key, default: Lane()].events.append(event)
    }
    return sendDue(now: now)
  }

  /// Notes that the outbox was read through `seq` with no further event for this webhook
  /// (the others did not match its filter), so the cursor may pass them.
  package mutating func skip(through seq: Int64) -> [Action] {
    guard !isDisabled, outbox.take(seq) else { return [] }
    return finish(seq)
  }

  /// The attempt for `seq` ended with `outcome` at `now`; `random` jitters a retry.
  /// An outcome for an event not in flight is ignored.
  package mutating func completed(
    seq: Int64, outcome: DeliveryOutcome, now: Double, random: inout some RandomNumberGenerator
  ) -> [Action] {
    // The lane is taken out while it changes (and put back below), so its queue is not
    // copied.
    guard !isDisabled, let key = inFlight.removeValue(forKey: seq),
      var lane = lanes.removeValue(forKey: key)
    else { return [] }
    inFlightCount -= 1
    var actions: [Action] = []
    switch outcome {
    case .gone:
      isDisabled = true
      lanes.removeAll()
      due.removeAll()
      outbox.dropHeld()
      inFlight.removeAll()
      return [.disable(reason: "the receiver answered 410 Gone for event \(seq)")]
    case .delivered:
      actions.append(.delivered(seq: seq, attempt: lane.attempts))
      advance(&lane, key: key, now: now)
      actions += finish(seq)
    case .failed(let reason, let retryAfterSeconds):
      if let wait = schedule.delay(
        afterFailedAttempt: lane.attempts, retryAfterSeconds: retryAfterSeconds, random: &random)
      {
        due.insert(Due(dueSeconds: now + wait, seq: seq, key: key))
        actions.append(
          .retryLater(seq: seq, attempt: lane.attempts, reason: reason, atSeconds: now + wait))
      } else {
        actions.append(.dead(seq: seq, attempts: lane.attempts, reason: reason))
        advance(&lane, key: key, now: now)
        actions += finish(seq)
      }
    }
    if lane.head < lane.events.count { lanes[key] = lane }
    actions += sendDue(now: now)
    return actions
  }

  /// Time passed: sends the retries that came due by `now`.
  package mutating func tick(now: Double) -> [Action] {
    guard !isDisabled else { return [] }
    return sendDue(now: now)
  }

  /// Moves `lane` past its head (delivered or dead) and queues its next event.
  private mutating func advance(_ lane: inout Lane, key: LaneKey, now: Double) {
    lane.head += 1
    lane.attempts = 0
    // A busy mission's lane never empties: drop its delivered prefix now and then.
    if lane.head > 64, lane.head * 2 > lane.events.count {
      lane.events.removeFirst(lane.head)
      lane.head = 0
    }
    if lane.head < lane.events.count {
      due.insert(Due(dueSeconds: now, seq: lane.events[lane.head].seq, key: key))
    } else {
      lane.events.removeAll()
      lane.head = 0
    }
  }

  /// Sends due lane heads while there is room, then asks to be woken for the next one.
  private mutating func sendDue(now: Double) -> [Action] {
    var actions: [Action] = []
    while inFlightCount < maximumInFlight, let next = due.min, next.dueSeconds <= now {
      _ = due.popMin()
      guard var lane = lanes[next.key] else { continue }
      lane.attempts += 1
      inFlightCount += 1
      inFlight[next.seq] = next.key
      actions.append(.send(lane.events[lane.head], attempt: lane.attempts))
      lanes[next.key] = lane
    }
    if inFlightCount < maximumInFlight, let next = due.min {
      actions.append(.wake(atSeconds: next.dueSeconds))
    }
    return actions
  }

  /// Marks `seq` handed over; the cursor action when the cursor moved.
  private mutating func finish(_ seq: Int64) -> [Action] {
    outbox.finish(seq).map { [.advanceCursor(to: $0)] } ?? []
  }
}
