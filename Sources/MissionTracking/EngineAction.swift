/// What `MissionEngine` must do for a decision of `EngineState`, in order.
///
/// The state machine decides; the engine's actor executes these one after another and
/// reports the outcome of each `commit` back (`EngineState.committed`), so that a transition
/// takes effect only once it is durable.
package enum EngineAction: Sendable, Hashable {
  /// Make everything recorded so far durable (before a transition is committed).
  case flush
  /// Record this transition in the store; once it is, tell the state (`committed`) and do
  /// what it returns. A refusal is the error of the operation.
  case commit(MissionTransition)
  /// Record this batch of a worker's session, then publish its events.
  case record(TrackingBatch)
  /// Record events of no session (`mission_nearby`), then publish them.
  case recordEvents([TrackingEvent])
  /// Publish events that are recorded already (a transition's `state` event) or never (a
  /// failure notice).
  case publish([TrackingEvent])
  /// Open worker `worker`'s fix source, if this process has one, for session `generation`.
  case openSource(worker: String, generation: Int)
  /// Close worker `worker`'s fix source at once.
  case closeSource(worker: String)
  /// Read where tracking of `missionID` stopped from the store, then start `worker`'s session
  /// from there (`EngineState.startSession`).
  case resume(worker: String, missionID: String)
  /// Worker `worker`'s session ended: wake whoever waits for it.
  case endTracking(worker: String, TrackingEnd)
}
