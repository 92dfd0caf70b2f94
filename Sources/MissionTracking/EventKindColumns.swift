/// The typed columns a SQL store keeps for one event's kind (the events table of DESIGN
/// §3): nil where the kind has no such member. The one mapping from a kind to its columns,
/// for every store.
package struct EventKindColumns: Sendable, Equatable {
  /// Metres from the mission (or the watch), or to the fence.
  package var distance: Double?
  /// Metres travelled so far (fix events).
  package var travelled: Double?
  /// The fence's id (enter, dwell, exit, crossed).
  package var fence: String?
  /// Whether an enter was the initial one.
  package var initial: Bool?
  /// Dwell seconds.
  package var seconds: Double?
  /// A state event's old state.
  package var from: String?
  /// A state event's new state.
  package var to: String?
  /// A source status, or a rejection's reason.
  package var status: String?
  /// A source status's detail.
  package var detail: String?
  /// A rejection's count.
  package var count: Int?
  /// A nearby event's watch.
  package var watch: String?

  /// The columns of `kind`.
  package init(_ kind: TrackingEvent.Kind) {
    switch kind {
    case .fix(_, let meters, let total): (distance, travelled) = (meters, total)
    case .enter(let id, let meters, let isInitial):
      (fence, distance, initial) = (id, meters, isInitial)
    case .dwell(let id, let dwell): (fence, seconds) = (id, dwell)
    case .exit(let id, let meters): (fence, distance) = (id, meters)
    case .crossed(let id, let meters): (fence, distance) = (id, meters)
    case .state(let old, let new): (from, to) = (old.rawValue, new.rawValue)
    case .source(let kind, let text): (status, detail) = (kind.rawValue, text)
    case .rejected(let reason, let number): (status, count) = (reason, number)
    case .nearby(let id, let meters): (watch, distance) = (id, meters)
    }
  }
}
