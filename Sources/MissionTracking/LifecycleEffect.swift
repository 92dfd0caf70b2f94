/// What the owner of a `MissionLifecycle` must do after a transition was committed.
///
/// The lifecycle itself does no I/O (the swift-nio state-machine style): it returns these and
/// the tracker performs them, in order.
package enum LifecycleEffect: Sendable, Hashable {
  /// Start the fix source and the tracking pipeline (the mission became active).
  case startTracking
  /// Stop the fix source at once (the mission was submitted, cancelled or expired).
  case stopTracking
  /// Publish this event (the `state` event of the transition).
  case emit(TrackingEvent)
}
