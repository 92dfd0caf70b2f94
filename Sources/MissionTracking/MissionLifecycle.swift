import Foundation

/// The lifecycle of one mission as a value-type state machine.
///
/// `open → accepted → active → arrived → submitted → completed`, plus `cancelled` (from open,
/// accepted, active, arrived) and `expired` (from open, accepted); the legal moves are
/// `MissionAction.target(from:)`. Each transition is recorded with its time and returns the
/// effects its owner must perform; nothing here does I/O.
///
/// - An illegal action throws `TrackingError.illegalTransition` and changes nothing.
/// - An idempotent action (e.g. `start` on an active mission, `submit` twice) records nothing
///   and returns no effects.
/// - Effects are ordered so that a stop comes before the `state` event that announces it and
///   a start comes after it.
package struct MissionLifecycle: Sendable, Hashable {
  /// The mission, with its current `state`.
  package private(set) var mission: Mission
  /// Every transition taken since this value was created, oldest first.
  package private(set) var transitions: [MissionTransition] = []

  /// Wraps `mission` in its current state.
  package init(mission: Mission) { self.mission = mission }

  /// The current state.
  package var state: MissionState { mission.state }

  /// The transition `action` would take at `time`, without taking it: nil when idempotent.
  ///
  /// - Parameter worker: The accepting worker for `accept` (default `Worker.localID`);
  ///   ignored for every other action, which keeps the mission's worker. Accepting an
  ///   accepted mission again is idempotent without a worker or with its own; with another
  ///   worker it is refused.
  /// - Throws: `TrackingError.illegalTransition` naming mission, state and action;
  ///   `.acceptedByAnother` naming the worker who holds it.
  package func transition(for action: MissionAction, at time: Date, worker: String? = nil)
    throws(TrackingError) -> MissionTransition?
  {
    guard let target = action.target(from: mission.state) else {
      throw .illegalTransition(missionID: mission.id, state: mission.state, action: action)
    }
    if action == .accept, mission.state == .accepted, let worker,
      case let holder = mission.workerID ?? Worker.localID, worker != holder
    {
      // Accepted by another worker: taking it over is not an accept (the mission keeps the
      // worker who accepted it for its history).
      throw .acceptedByAnother(missionID: mission.id, acceptedBy: holder, requestedBy: worker)
    }
    if target == mission.state { return nil }
    let workerID = action == .accept ? (worker ?? Worker.localID) : mission.workerID
    return MissionTransition(
      missionID: mission.id, action: action, from: mission.state, to: target, time: time,
      workerID: workerID)
  }

  /// What `action` at `time` does, as one transition: `transition(for:at:worker:)`'s, or
  /// for an idempotent action one that changes nothing (`from == to`, the mission's worker),
  /// which the one-shot paths (`missions ACTION`) report and record nowhere.
  /// - Throws: as `transition(for:at:worker:)`.
  package func outcome(of action: MissionAction, at time: Date, worker: String? = nil)
    throws(TrackingError) -> MissionTransition
  {
    try transition(for: action, at: time, worker: worker)
      ?? MissionTransition(
        missionID: mission.id, action: action, from: mission.state, to: mission.state,
        time: time, workerID: mission.workerID)
  }

  /// Applies `action` at `time` and returns the effects to perform.
  ///
  /// - Returns: `[]` for an idempotent action; otherwise the `state` event plus
  ///   `.startTracking` when entering a tracking state or `.stopTracking` when leaving one.
  /// - Throws: `TrackingError.illegalTransition`; the lifecycle is then unchanged.
  @discardableResult
  package mutating func apply(_ action: MissionAction, at time: Date) throws(TrackingError)
    -> [LifecycleEffect]
  {
    guard let transition = try transition(for: action, at: time) else { return [] }
    return commit(transition)
  }

  /// Records a transition obtained from `transition(for:at:)` and returns its effects.
  ///
  /// - Precondition: `transition.from` is the current state (checked; a stale transition is
  ///   ignored and returns no effects).
  @discardableResult
  package mutating func commit(_ transition: MissionTransition) -> [LifecycleEffect] {
    guard transition.from == mission.state, transition.missionID == mission.id else { return [] }
    mission.state = transition.to
    if let worker = transition.workerID { mission.workerID = worker }
    transitions.append(transition)
    let event = LifecycleEffect.emit(transition.event)
    if !transition.from.isTracking && transition.to.isTracking { return [event, .startTracking] }
    if transition.from.isTracking && !transition.to.isTracking { return [.stopTracking, event] }
    return [event]
  }

  /// Whether the mission's deadline has passed at `now` while it can still expire.
  package func isDue(at now: Date) -> Bool {
    guard let deadline = mission.deadline else { return false }
    return now > deadline && MissionAction.expire.target(from: mission.state) != mission.state
      && MissionAction.expire.target(from: mission.state) != nil
  }

  /// Expires the mission when its deadline has passed at `now` (open or accepted only).
  ///
  /// - Returns: The effects of the `expire` transition, or `[]` when not due.
  @discardableResult
  package mutating func expireIfDue(at now: Date) -> [LifecycleEffect] {
    guard isDue(at: now) else { return [] }
    return (try? apply(.expire, at: now)) ?? []
  }
}
