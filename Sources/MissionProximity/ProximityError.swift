/// Errors thrown by `MissionProximity` for input it cannot accept.
public enum ProximityError: Error, Sendable, Equatable {
  /// A latitude that is NaN, infinite or outside [-90, 90] degrees.
  case invalidLatitude(Double)
  /// A longitude that is NaN, infinite or outside [-180, 180] degrees.
  case invalidLongitude(Double)
  /// A distance or radius that is NaN, infinite or negative, in metres.
  case invalidDistance(Double)
  /// A bearing that is NaN or infinite, in degrees.
  case invalidBearing(Double)
  /// A result count below zero.
  case invalidCount(Int)
}

extension ProximityError: CustomStringConvertible {
  /// One line that names the bad value.
  public var description: String {
    switch self {
    case .invalidLatitude(let value): "invalid latitude \(value): must be a number in [-90, 90]"
    case .invalidLongitude(let value):
      "invalid longitude \(value): must be a number in [-180, 180]"
    case .invalidDistance(let value):
      "invalid distance \(value) m: must be a finite number >= 0"
    case .invalidBearing(let value): "invalid bearing \(value)°: must be a finite number"
    case .invalidCount(let value): "invalid count \(value): must be >= 0"
    }
  }
}
