/// A validated WGS-84 position in degrees, latitude first.
///
/// Latitude is in [-90, 90] and longitude in [-180, 180]. NaN and infinities are rejected.
/// Longitude 180 and -180 name the same meridian; every computation treats them alike.
public struct Coordinate: Sendable, Hashable {
  /// Latitude in degrees, positive north.
  public let latitude: Double
  /// Longitude in degrees, positive east.
  public let longitude: Double

  /// Creates a coordinate, rejecting values outside the WGS-84 ranges.
  ///
  /// - Parameters:
  ///   - latitude: Degrees in [-90, 90].
  ///   - longitude: Degrees in [-180, 180].
  /// - Throws: `ProximityError.invalidLatitude` or `.invalidLongitude` naming the bad value.
  public init(latitude: Double, longitude: Double) throws(ProximityError) {
    guard latitude.isFinite, (-90.0...90.0).contains(latitude) else {
      throw .invalidLatitude(latitude)
    }
    guard longitude.isFinite, (-180.0...180.0).contains(longitude) else {
      throw .invalidLongitude(longitude)
    }
    self.latitude = latitude
    self.longitude = longitude
  }

  /// Creates a coordinate from values the caller has already range-checked.
  package init(uncheckedLatitude latitude: Double, longitude: Double) {
    self.latitude = latitude
    self.longitude = longitude
  }
}

extension Coordinate: CustomStringConvertible {
  /// `"lat, lon"` in degrees, as a person would type it.
  public var description: String { "\(latitude), \(longitude)" }
}
