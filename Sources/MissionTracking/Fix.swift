import Foundation
@_exported import MissionProximity

/// One position report: where the receiver was, when, and how well it knew.
///
/// A report without a position is never a `Fix`: readers and sources skip it, so nothing is
/// ever recorded at (0, 0) because a field was missing. Optional members are `nil` when the
/// report did not carry them.
public struct Fix: Sendable, Hashable {
  /// Fix time, UTC, with sub-second precision.
  public var time: Date
  /// The position.
  public var coordinate: Coordinate
  /// Altitude above mean sea level in metres.
  public var altitudeMeters: Double?
  /// Horizontal accuracy (95 % / gpsd `eph`-like) radius in metres.
  public var horizontalAccuracyMeters: Double?
  /// Speed over ground in metres per second.
  public var speedMetersPerSecond: Double?
  /// Course over ground in degrees clockwise from true north, [0, 360).
  public var courseDegrees: Double?
  /// The receiver's fix mode.
  public var mode: FixMode
  /// Satellites used in the solution.
  public var satellitesUsed: Int?
  /// Where the report came from (for example `"nmea"`, `"gpx"`, `"gpsd"`).
  public var source: String

  /// Creates a fix. Only time, position, mode and source are required.
  public init(
    time: Date, coordinate: Coordinate, mode: FixMode = .threeD, source: String,
    altitudeMeters: Double? = nil, horizontalAccuracyMeters: Double? = nil,
    speedMetersPerSecond: Double? = nil, courseDegrees: Double? = nil,
    satellitesUsed: Int? = nil
  ) {
    self.time = time
    self.coordinate = coordinate
    self.mode = mode
    self.source = source
    self.altitudeMeters = altitudeMeters
    self.horizontalAccuracyMeters = horizontalAccuracyMeters
    self.speedMetersPerSecond = speedMetersPerSecond
    self.courseDegrees = courseDegrees
    self.satellitesUsed = satellitesUsed
  }
}
