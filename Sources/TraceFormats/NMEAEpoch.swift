import Foundation
import MissionTracking

/// Everything the sentences of one epoch (one time of day) told, merged.
///
/// Later sentences overwrite earlier values field by field, the way gpsd's last TPV of an
/// epoch carries the most recent value of each member.
struct NMEAEpoch {
  /// Time of day in microseconds: the epoch's key.
  var timeOfDayMicros: Int64
  /// Days since 1970-01-01 when an RMC or ZDA of this epoch carried a date.
  var day: Int?
  /// Latitude of the last valid position reported in this epoch, degrees.
  var latitude = Double.nan
  /// Longitude of the last valid position reported in this epoch, degrees.
  var longitude = Double.nan
  /// Whether the last position-bearing sentence of the epoch had a valid position (a later
  /// "no fix" sentence clears it).
  var hasPosition = false
  var altitudeMeters: Double?
  var hdop: Double?
  /// Horizontal 2DRMS from GST's latitude and longitude sigmas, metres.
  var gstHorizontalMeters: Double?
  var speedMetersPerSecond: Double?
  var courseDegrees: Double?
  /// Fix type from GSA (2 or 3) when told.
  var gsaMode: FixMode?
  /// Whether GGA/GNS reported an altitude (a 3D solution) in this epoch.
  var hasAltitudeSolution = false
  /// DGPS, RTK or other differential correction (smaller UERE).
  var differential = false
  var satellitesUsed: Int?
  /// The 1-based input line of the epoch's first sentence (for messages).
  var line: Int

  /// Arrival order among epochs.
  var sequence: Int

  init(timeOfDayMicros: Int64, line: Int, sequence: Int) {
    self.timeOfDayMicros = timeOfDayMicros
    self.line = line
    self.sequence = sequence
  }

  /// User equivalent range error, metres per unit of HDOP: gpsd 3.22's `P_UERE_NO_DGPS`
  /// (19 m) and `P_UERE_WITH_DGPS` (4.75 m), so `eph_m` equals gpsd's TPV `eph`.
  static let uereMeters = 19.0
  static let differentialUereMeters = 4.75

  /// The fix this epoch describes, with its time set from `day`; nil without a position.
  func fix(day: Int, source: String) -> Fix? {
    guard hasPosition else { return nil }
    let seconds = Double(day) * 86_400 + Double(timeOfDayMicros) / 1_000_000
    let mode: FixMode = gsaMode ?? (hasAltitudeSolution ? .threeD : .twoD)
    var accuracy = gstHorizontalMeters
    if accuracy == nil, let hdop {
      accuracy = hdop * (differential ? NMEAEpoch.differentialUereMeters : NMEAEpoch.uereMeters)
    }
    return Fix(
      time: Date(timeIntervalSince1970: seconds),
      coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
      mode: mode, source: source, altitudeMeters: altitudeMeters,
      horizontalAccuracyMeters: accuracy, speedMetersPerSecond: speedMetersPerSecond,
      courseDegrees: courseDegrees, satellitesUsed: satellitesUsed)
  }
}
