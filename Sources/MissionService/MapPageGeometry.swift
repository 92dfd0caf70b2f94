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
/// The map is centred on the focus mission's point, else on the first tracked worker's
/// mission, else on the first listed mission. It fits the focus mission's exit ring and every
/// tracked worker's mission's exit ring with some land around them (as the report), and their
/// tracks; with none of them, every listed mission's fence.
struct MapPageGeometry {
  /// A worker with a tracked mission (DESIGN §7), drawn with its mission's fence and its
  /// delivered track.
  struct TrackedWorker {
    /// The worker's id and name.
    var id: String
    var name: String?
    /// The tracked mission.
    var mission: Mission
    /// Its delivered track, oldest first.
    var track: [Fix]
    /// The fence's state as the engine holds it (nil: none yet).
    var fence: FenceState?
  }

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
  private let workers: [TrackedWorker]

  /// The geometry of a map of `width` × `height` pixels showing `focus` (its fence and
  /// `track`) and `missions`; `listCenter` is where the page's list of missions was asked
  /// around, for the worker's distance from it; `workers` are the workers with a tracked
  /// mission.
  init(
    width: Double, height: Double, focus: Mission?, track: [Fix], missions: [Mission],
    listCenter: Coordinate?, workers: [TrackedWorker] = []
  ) {
    self.width = width
    self.height = height
    self.focus = focus
    self.track = track
    self.missions = missions
    self.listCenter = listCenter
    self.workers = workers
    center = focus?.coordinate ?? workers.first?.mission.coordinate ?? missions.first?.coordinate
  }

  /// The geometry as one JSON object: `center` (null when there is nothing to draw), then
  /// `px_per_m`, `origin` (the centre on the page), `scale_bar` (`meters`, `px`, `label`),
  /// `fence` (with a focus: `mission`, `radius_m`, `exit_radius_m`, `radius_px`,
  /// `exit_radius_px`), `track` (`x`, `y` and `t`, milliseconds since 1970, of each fix;
  /// points to 0.01 px),
  /// `worker` (the last fix: `lat`, `lon`, `time`, `x`, `y`, and `from_list_center_m`),
  /// `missions` (`id`, `x`, `y`, `radius_px`) and `workers` (each tracked worker: `id`,
  /// `name`, `mission`, `fence` (`inside`, `outside`, `unknown`), `distance_m` from its last
  /// fix to its mission (null before one), `fence_x`, `fence_y`, `radius_px`,
  /// `exit_radius_px`, `track` as above and `position`, its last fix as `worker`, or null).
  var json: String {
    var body = JSONObjectWriter()
    guard let center else {
      body.addRaw("center", json: "null")
      return body.result
    }
    let projection = LocalProjection(center: center)
    let plane = track.map { projection.project($0.coordinate) }
    let workerPlanes = workers.map { $0.track.map { projection.project($0.coordinate) } }
    let frame = fitted(projection: projection, plane: plane + workerPlanes.joined())
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
    let tracked = zip(workers, workerPlanes).map { worker, plane in
      workerJSON(worker, plane: plane, projection: projection, frame: frame)
    }
    body.addRaw("workers", json: "[" + tracked.joined(separator: ",") + "]")
    return body.result
  }

  private func workerJSON(
    _ worker: TrackedWorker, plane: [PlanePoint], projection: LocalProjection, frame: MapFrame
  ) -> String {
    let scale = frame.pixelsPerMeter
    let fence = Geofence(mission: worker.mission)
    var json = JSONObjectWriter()
    json.add("id", worker.id)
    if let name = worker.name { json.add("name", name) } else { json.addRaw("name", json: "null") }
    json.add("mission", worker.mission.id)
    json.add("fence", FenceState.position(worker.fence, trackFixes: worker.track.count))
    if let last = worker.track.last {
      json.add("distance_m", last.coordinate.distance(to: worker.mission.coordinate))
    } else {
      json.addRaw("distance_m", json: "null")
    }
    let middle = frame.page(projection.project(worker.mission.coordinate))
    json.add("fence_x", (middle.x * 100).rounded() / 100)
    json.add("fence_y", (middle.y * 100).rounded() / 100)
    json.add("radius_px", fence.radiusMeters * scale)
    json.add("exit_radius_px", fence.exitDistanceMeters * scale)
    let points = zip(worker.track, plane).map { fix, point in
      var object = JSONObjectWriter()
      Self.add(frame.page(point), to: &object)
      object.add("t", (fix.time.timeIntervalSince1970 * 1000).rounded())
      return object.result
    }
    json.addRaw("track", json: "[" + points.joined(separator: ",") + "]")
    if let last = worker.track.last, let point = plane.last {
      var position = JSONObjectWriter()
      position.add("lat", last.coordinate.latitude)
      position.add("lon", last.coordinate.longitude)
      position.add("time", UTCTime.format(last.time))
      Self.add(frame.page(point), to: &position)
      json.addRaw("position", json: position.result)
    } else {
      json.addRaw("position", json: "null")
    }
    return json.result
  }

  /// The frame that fits the focus fence's exit ring and the tracked workers' (else every
  /// mission's fence), with the report's land around them, and the tracks into the map.
  private func fitted(projection: LocalProjection, plane: [PlanePoint]) -> MapFrame {
    let rings = ([focus].compactMap { $0 } + workers.map(\.mission)).map {
      (projection.project($0.coordinate), Geofence(mission: $0).exitDistanceMeters)
    }
    let fences =
      rings.isEmpty
      ? missions.map { (projection.project($0.coordinate), $0.geofenceRadiusMeters) } : rings
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
