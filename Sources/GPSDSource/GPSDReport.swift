import Foundation
import MissionTracking

/// One gpsd `TPV` report as libgps decoded it, in Swift types. Doubles are NaN when gpsd did
/// not send the member (libgps's convention); `time` is `nil` when it was absent.
struct GPSDReport: Sendable {
  /// gpsd's mode: 0 not seen, 1 no fix, 2 2D, 3 3D.
  var mode: Int
  var time: Date?
  var latitude: Double
  var longitude: Double
  var altitudeMSLMeters: Double = .nan
  var ephMeters: Double = .nan
  var epxMeters: Double = .nan
  var epyMeters: Double = .nan
  var speedMetersPerSecond: Double = .nan
  var trackDegrees: Double = .nan

  /// 1980-01-06T00:00:00Z, the GPS epoch: no receiver reports a fix before it, and libgps
  /// turns an unparsable `time` into 1900-01-01.
  static let earliestPlausibleTime = Date(timeIntervalSince1970: 315_964_800)

  /// What a report means for the source.
  enum Meaning: Equatable {
    /// A usable position.
    case fix(Fix)
    /// The receiver reports that it has no fix (mode 0 or 1).
    case noFix
    /// Mode 2 or 3 but no usable time or position.
    case unusable
  }

  /// Classifies the report: a `Fix` only for mode ≥ 2 with a finite, in-range position and a
  /// plausible time. Accuracy is `eph`, else the larger of `epx` and `epy`; altitude (MSL)
  /// only in 3D; track normalised to [0, 360).
  var meaning: Meaning {
    guard mode >= 2 else { return .noFix }
    guard let time, time >= GPSDReport.earliestPlausibleTime,
      let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
    else { return .unusable }
    var accuracy: Double?
    if ephMeters.isFinite {
      accuracy = ephMeters
    } else if epxMeters.isFinite || epyMeters.isFinite {
      accuracy = [epxMeters, epyMeters].filter(\.isFinite).max()
    }
    var course: Double?
    if trackDegrees.isFinite {
      let normalised = trackDegrees.truncatingRemainder(dividingBy: 360)
      course = normalised < 0 ? normalised + 360 : normalised
    }
    return .fix(
      Fix(
        time: time, coordinate: coordinate, mode: mode >= 3 ? .threeD : .twoD, source: "gpsd",
        altitudeMeters: mode >= 3 ? altitudeMSLMeters.finiteOrNil : nil,
        horizontalAccuracyMeters: accuracy.flatMap { $0 >= 0 ? $0 : nil },
        speedMetersPerSecond: speedMetersPerSecond.finiteOrNil, courseDegrees: course))
  }
}
