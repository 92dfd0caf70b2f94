import Foundation
import MissionProximity
import MissionReporting
import MissionTracking
import TextRules

/// What the live map page draws, in the page's pixels, computed here by the report's own code
/// so that the page holds no copy of it (`GET /map.json`): the projection about the map's
/// centre (`LocalProjection`), the frame fitted to the map's size (`MapFrame`), the focus
/// mission's fence and exit ring (`Geofence`), the scale bar (`ScaleBar`), the delivered track
/// and the listed missions.
///
/// The map is centred on the focus mission's point, else on the first listed mission. With a
/// focus mission it fits the fence's exit ring with some land around it (as the report) and
/// the track; without one, every listed mission's fence.
struct MapPageGeometry {
  /// Pixels left free on every side of what is fitted (the page's map has its controls there).
  static let paddingPixels = 56.0
  /// The longest scale bar, pixels.
  static let scaleBarMaximumPixels = 170.0

  /// The map's centre: the origin of the projection.
  let center: Coordinate?
  private let width: Double
  private let height: Double
  private let focus: Mission?
  private let track: [Fix]
  private let missions: [Mission]
  private let listCenter: Coordinate?

  /// The geometry of a map of `width` × `height` pixels showing `focus` (its fence and
  /// `track`) and `missions`; `listCenter` is where the page's list of missions was asked
  /// around, for the worker's distance from it.
  init(
    width: Double, height: Double, focus: Mission?, track: [Fix], missions: [Mission],
    listCenter: Coordinate?
  ) {
    self.width = width
    self.height = height
    self.focus = focus
    self.track = track
    self.missions = missions
    self.listCenter = listCenter
    center = focus?.coordinate ?? missions.first?.coordinate
  }

  /// The geometry as one JSON object: `center` (null when there is nothing to draw), then
  /// `px_per_m`, `origin` (the centre on the page), `scale_bar` (`meters`, `px`, `label`),
  /// `fence` (with a focus: `mission`, `radius_m`, `exit_radius_m`, `radius_px`,
  /// `exit_radius_px`), `track` (`x`, `y` and `t`, milliseconds since 1970, of each fix;
  /// points to 0.01 px),
  /// `worker` (the last fix: `lat`, `lon`, `time`, `x`, `y`, and `from_list_center_m`) and
  /// `missions` (`id`, `x`, `y`, `radius_px`).
  var json: String {
    var body = JSONObjectWriter()
    guard let center else {
      body.addRaw("center", json: "null")
      return body.result
    }
    let projection = LocalProjection(center: center)
    let plane = track.map { projection.project($0.coordinate) }
    let frame = fitted(projection: projection, plane: plane)
    let scale = frame.pixelsPerMeter
    body.addRaw("center", json: Self.coordinateJSON(center))
    body.add("px_per_m", scale)
    body.addRaw("origin", json: Self.pointJSON(frame.page(projection.project(center))))
    let bar = ScaleBar(pixelsPerMeter: scale, maximumPixels: Self.scaleBarMaximumPixels)
    var barJSON = JSONObjectWriter()
    barJSON.add("meters", bar.meters)
    barJSON.add("px", bar.pixels)
    barJSON.add("label", bar.label)
    body.addRaw("scale_bar", json: barJSON.result)
    if let focus {
      let fence = Geofence(mission: focus)
      var fenceJSON = JSONObjectWriter()
      fenceJSON.add("mission", focus.id)
      fenceJSON.add("radius_m", fence.radiusMeters)
      fenceJSON.add("exit_radius_m", fence.exitDistanceMeters)
      fenceJSON.add("radius_px", fence.radiusMeters * scale)
      fenceJSON.add("exit_radius_px", fence.exitDistanceMeters * scale)
      body.addRaw("fence", json: fenceJSON.result)
    }
    let points = zip(track, plane).map { fix, point in
      var object = JSONObjectWriter()
      Self.add(frame.page(point), to: &object)
      object.add("t", (fix.time.timeIntervalSince1970 * 1000).rounded())
      return object.result
    }
    body.addRaw("track", json: "[" + points.joined(separator: ",") + "]")
    if let last = track.last, let point = plane.last {
      var worker = JSONObjectWriter()
      worker.add("lat", last.coordinate.latitude)
      worker.add("lon", last.coordinate.longitude)
      worker.add("time", UTCTime.format(last.time))
      Self.add(frame.page(point), to: &worker)
      if let listCenter {
        worker.add("from_list_center_m", listCenter.distance(to: last.coordinate))
      }
      body.addRaw("worker", json: worker.result)
    }
    let shown = missions.map { mission in
      var object = JSONObjectWriter()
      object.add("id", mission.id)
      Self.add(frame.page(projection.project(mission.coordinate)), to: &object)
      object.add("radius_px", mission.geofenceRadiusMeters * scale)
      return object.result
    }
    body.addRaw("missions", json: "[" + shown.joined(separator: ",") + "]")
    return body.result
  }

  /// The frame that fits the focus fence's exit ring (else every mission's fence), with the
  /// report's land around it, and the track into the map.
  private func fitted(projection: LocalProjection, plane: [PlanePoint]) -> MapFrame {
    let fences =
      focus.map { [(projection.project($0.coordinate), Geofence(mission: $0).exitDistanceMeters)] }
      ?? missions.map { (projection.project($0.coordinate), $0.geofenceRadiusMeters) }
    return MapFrame(
      left: 0, top: 0, width: width, height: height, fences: fences, points: plane,
      paddingPixels: Self.paddingPixels)
  }

  private static func coordinateJSON(_ coordinate: Coordinate) -> String {
    var object = JSONObjectWriter()
    object.add("lat", coordinate.latitude)
    object.add("lon", coordinate.longitude)
    return object.result
  }

  private static func pointJSON(_ point: PlanePoint) -> String {
    var object = JSONObjectWriter()
    add(point, to: &object)
    return object.result
  }

  /// Adds a page point's `x` and `y` to the nearest 0.01 px, as the page draws them: a track of
  /// many fixes, sent at every render, is then about half as long.
  private static func add(_ point: PlanePoint, to object: inout JSONObjectWriter) {
    object.add("x", (point.x * 100).rounded() / 100)
    object.add("y", (point.y * 100).rounded() / 100)
  }
}
