/// A latitude/longitude box in degrees, which may cross the antimeridian.
///
/// When `west` is greater than `east` the box wraps across longitude ±180: it holds the
/// longitudes in [west, 180] and [-180, east]. A box with `west == -180` and `east == 180`
/// spans every longitude.
public struct BoundingBox: Sendable, Hashable {
  /// Southern edge, degrees.
  public let south: Double
  /// Western edge, degrees.
  public let west: Double
  /// Northern edge, degrees.
  public let north: Double
  /// Eastern edge, degrees.
  public let east: Double

  /// Creates a box from its edges in degrees.
  ///
  /// - Throws: `ProximityError` for a non-finite or out-of-range edge, or when `south` is
  ///   north of `north`.
  public init(south: Double, west: Double, north: Double, east: Double) throws(ProximityError) {
    _ = try Coordinate(latitude: south, longitude: west)
    _ = try Coordinate(latitude: north, longitude: east)
    guard south <= north else { throw .invalidLatitude(south) }
    self.init(unchecked: south, west: west, north: north, east: east)
  }

  package init(unchecked south: Double, west: Double, north: Double, east: Double) {
    self.south = south
    self.west = west
    self.north = north
    self.east = east
  }

  /// Whether the box wraps across longitude ±180.
  public var crossesAntimeridian: Bool { west > east }

  /// Whether `coordinate` lies inside the box or on its edge.
  public func contains(_ coordinate: Coordinate) -> Bool {
    guard coordinate.latitude >= south, coordinate.latitude <= north else { return false }
    let lon = coordinate.longitude
    if west == -180 && east == 180 { return true }
    if crossesAntimeridian { return lon >= west || lon <= east || lon == -180 || lon == 180 }
    return (lon >= west && lon <= east)
      || (lon == -180 && east == 180) || (lon == 180 && west == -180)
  }
}
