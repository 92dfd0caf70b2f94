import Foundation
import MissionTracking

/// One GPX point (`<trkpt>`, `<rtept>` or `<wpt>`) as written, before it becomes a `Fix`.
///
/// Unlike a `Fix`, a point need not have a time: many GPX files (planned routes, exports from
/// map tools) carry none. `GPXDecoder.decode(_:into:)` for points delivers these too, so a
/// caller that only needs geometry (a distance-filter test, a writer) can use them.
public struct GPXPoint: Sendable, Hashable {
  /// Which GPX element a point came from.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// `<trkpt>` inside `<trk><trkseg>`.
    case trackPoint = "trkpt"
    /// `<rtept>` inside `<rte>`.
    case routePoint = "rtept"
    /// `<wpt>` directly inside `<gpx>`.
    case waypoint = "wpt"
  }

  /// The element the point came from.
  public var kind: Kind
  /// The position (`lat`, `lon` attributes), range-checked.
  public var coordinate: Coordinate
  /// `<time>` converted to UTC, or nil when the point has none.
  public var time: Date?
  /// `<ele>` in metres.
  public var elevationMeters: Double?
  /// `<hdop>`, dimensionless.
  public var hdop: Double?
  /// `<sat>`: satellites used.
  public var satellites: Int?
  /// `<fix>`: `none` → `.noFix`, `2d` → `.twoD`, `3d`/`dgps`/`pps` → `.threeD`; nil if absent.
  public var fixMode: FixMode?
  /// Whether `<fix>` said `dgps` (a differential solution: a smaller error per unit of HDOP).
  public var isDifferential: Bool
  /// Speed in m/s: GPX 1.0 `<speed>` or an extension's `speed` (Garmin TrackPointExtension v2).
  public var speedMetersPerSecond: Double?
  /// Course in degrees, normalised to [0, 360): GPX 1.0 `<course>` or an extension's `course`.
  public var courseDegrees: Double?
  /// 0-based index of the point's `<trk>` or `<rte>` among its kind; 0 for waypoints.
  public var track: Int
  /// 0-based index of the point's `<trkseg>` within its track; 0 for route points and waypoints.
  public var segment: Int

  /// Creates a point; only the kind and position are required.
  public init(
    kind: Kind, coordinate: Coordinate, time: Date? = nil, elevationMeters: Double? = nil,
    hdop: Double? = nil, satellites: Int? = nil, fixMode: FixMode? = nil,
    isDifferential: Bool = false, speedMetersPerSecond: Double? = nil, courseDegrees: Double? = nil,
    track: Int = 0,
    segment: Int = 0
  ) {
    self.kind = kind
    self.coordinate = coordinate
    self.time = time
    self.elevationMeters = elevationMeters
    self.hdop = hdop
    self.satellites = satellites
    self.fixMode = fixMode
    self.isDifferential = isDifferential
    self.speedMetersPerSecond = speedMetersPerSecond
    self.courseDegrees = courseDegrees
    self.track = track
    self.segment = segment
  }

  /// Metres of horizontal accuracy per unit of HDOP: gpsd's user equivalent range error
  /// without DGPS (`P_UERE_NO_DGPS`, 19 m, gpsd 3.22), as the NMEA reader uses, so `eph_m`
  /// means the same whatever the trace format.
  public static let metersPerHDOP = 19.0
  /// Metres per unit of HDOP for a differential (`dgps`) fix: gpsd's `P_UERE_WITH_DGPS`.
  public static let differentialMetersPerHDOP = 4.75

  /// The point as a `Fix`, or nil when it has no time or says `<fix>none</fix>`.
  ///
  /// The mode is `<fix>` when present, else 3D with `<ele>` and 2D without. The horizontal
  /// accuracy is `hdop × metersPerHDOP` (`differentialMetersPerHDOP` for `dgps`) when `<hdop>`
  /// is present.
  /// - Parameter source: The fix's `source` tag.
  public func fix(source: String = "gpx") -> Fix? {
    guard let time else { return nil }
    return fix(at: time, source: source)
  }

  /// The point as a `Fix` at `time` (its own or one given to an untimed point, e.g. along a
  /// route at a walking speed), or nil when it says `<fix>none</fix>`.
  /// - Parameters:
  ///   - time: The fix time to use.
  ///   - source: The fix's `source` tag.
  public func fix(at time: Date, source: String = "gpx") -> Fix? {
    let mode = fixMode ?? (elevationMeters == nil ? .twoD : .threeD)
    guard mode != .noFix else { return nil }
    return Fix(
      time: time, coordinate: coordinate, mode: mode, source: source,
      altitudeMeters: elevationMeters,
      horizontalAccuracyMeters: hdop.map {
        $0 * (isDifferential ? GPXPoint.differentialMetersPerHDOP : GPXPoint.metersPerHDOP)
      },
      speedMetersPerSecond: speedMetersPerSecond, courseDegrees: courseDegrees,
      satellitesUsed: satellites)
  }
}
