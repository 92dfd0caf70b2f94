import Foundation
import MissionTracking

/// The values one position report carries, in our units, before they are checked: every
/// decoder fills one and `fix(source:)` applies the rules they share.
struct PointFields {
  /// Latitude in degrees.
  var latitude: Double?
  /// Longitude in degrees.
  var longitude: Double?
  /// Fix time.
  var time: Date?
  /// Altitude in metres.
  var altitudeMeters: Double?
  /// Horizontal accuracy in metres; negative means unknown.
  var accuracyMeters: Double?
  /// Speed in metres per second; negative means unknown.
  var speedMetersPerSecond: Double?
  /// Course in degrees; negative means unknown.
  var courseDegrees: Double?
  /// The receiver's fix mode when the report gives one; else 3D with an altitude, 2D without.
  var mode: FixMode?

  /// Knots to metres per second: 1852 m per nautical mile, per hour.
  static let metersPerSecondPerKnot = 1852.0 / 3600
  /// Kilometres per hour to metres per second.
  static let metersPerSecondPerKmh = 1000.0 / 3600

  /// The fix these values describe, checked by the project's rules: a position that is no
  /// WGS-84 position (NaN, out of range) or is exactly (0, 0) — a missing field, never a
  /// place — is refused, as `FixCleaner.invalidity` refuses it; a report without a fix
  /// (mode 1) is no position either.
  /// - Throws: `PointProblem` with the reason in one line.
  func fix(source: IngestProtocol) throws(PointProblem) -> Fix {
    guard let latitude, let longitude else { throw PointProblem("no latitude and longitude") }
    let coordinate: Coordinate
    do {
      coordinate = try Coordinate(latitude: latitude, longitude: longitude)
    } catch {
      throw PointProblem(error.description)
    }
    guard let time else { throw PointProblem("no time") }
    let altitude = altitudeMeters
    let fix = Fix(
      time: time, coordinate: coordinate, mode: mode ?? (altitude == nil ? .twoD : .threeD),
      source: source.rawValue, altitudeMeters: altitude,
      horizontalAccuracyMeters: accuracyMeters.flatMap { $0 >= 0 ? $0 : nil },
      speedMetersPerSecond: speedMetersPerSecond.flatMap { $0 >= 0 ? $0 : nil },
      // A course of 360° or more is the same direction as its remainder: [0, 360) as `Fix`.
      courseDegrees: courseDegrees.flatMap {
        $0 >= 0 ? $0.truncatingRemainder(dividingBy: 360) : nil
      })
    if let reason = FixCleaner.invalidity(of: fix) {
      throw PointProblem(
        reason == .noFix ? "the report has no fix (mode 1)" : "(0, 0) is a missing position")
    }
    return fix
  }
}

/// Why one point cannot be a position, in one line: a batch counts it and goes on, a
/// single-position request is refused with it.
struct PointProblem: Error {
  /// The reason.
  let reason: String
  init(_ reason: String) { self.reason = reason }
}
