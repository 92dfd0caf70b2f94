extension TrackingEvent {
  /// The fence a geofence event is about, nil for other kinds.
  public var fenceID: String? {
    switch kind {
    case .enter(let id, _, _), .dwell(let id, _), .exit(let id, _), .crossed(let id, _): id
    default: nil
    }
  }
}
