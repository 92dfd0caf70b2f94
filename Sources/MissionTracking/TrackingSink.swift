/// Where the tracker persists what happens: the hook for a store.
///
/// The tracker awaits `commit` before it applies a lifecycle transition's effects (a
/// transition is durable before the source starts or stops and before its `state` event is
/// published), and awaits `record` before it publishes the events of a report. Each `record`
/// call carries the events of one report, so a store can collect them and write them in
/// batched transactions; `flush` asks it to make everything recorded durable and is called
/// before every transition and when tracking stops or the source ends.
public protocol TrackingSink: Sendable {
  /// Persists a lifecycle transition (its `state` event is `transition.event`).
  /// - Throws: Any error; the transition is then not applied.
  func commit(_ transition: MissionTransition) async throws
  /// Persists the events of one report and the fence states they changed.
  /// - Throws: Any error; the tracker then stops tracking and reports the failure.
  func record(_ batch: TrackingBatch) async throws
  /// Makes everything recorded so far durable.
  func flush() async throws
}

extension TrackingSink {
  /// Does nothing: for sinks that write each batch at once.
  public func flush() async throws {}
}
