/// A standing nearby query: when a mission enters its result set, one `mission_nearby`
/// event is recorded (DESIGN §7, the seed app's "new mission near you").
public struct Watch: Sendable, Hashable, Identifiable {
  /// The watch's id.
  public var id: String
  /// The centre of the query.
  public var coordinate: Coordinate
  /// The radius of the query, metres (the boundary is inclusive, as for `nearby`).
  public var radiusMeters: Double
  /// The worker the watch is for, if any (carried on its events).
  public var workerID: String?
  /// Only missions in this state are in the result set; nil for every state. Default open.
  public var state: MissionState?

  /// Creates a watch.
  public init(
    id: String, coordinate: Coordinate, radiusMeters: Double, workerID: String? = nil,
    state: MissionState? = .open
  ) {
    self.id = id
    self.coordinate = coordinate
    self.radiusMeters = radiusMeters
    self.workerID = workerID
    self.state = state
  }
}
