/// One result of a proximity query: a mission id and its great-circle distance from the
/// query point.
public struct ProximityMatch: Sendable, Hashable {
  /// The mission id as it was inserted.
  public let id: String
  /// Haversine distance from the query point in metres (see `Coordinate.distance(to:)`).
  public let distanceMeters: Double

  /// Creates a match.
  public init(id: String, distanceMeters: Double) {
    self.id = id
    self.distanceMeters = distanceMeters
  }
}
