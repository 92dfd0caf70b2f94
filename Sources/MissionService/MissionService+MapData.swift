import Foundation
import MissionProximity
import MissionStore
import MissionTracking

extension MissionService {
  /// How many missions the map draws, as the page lists them.
  static let mapMissionLimit = 100
  /// How many tracked workers the map draws (by id), each with its whole track.
  static let mapWorkerLimit = 50

  /// `GET /map.json?width=&height=[&mission=ID][&lat=&lon=&radius_m=]`: the live map page's
  /// geometry (`MapPageGeometry`) for a map of `width` × `height` pixels, with `mission` in
  /// focus (its fence and delivered track) and the missions the page lists: those within
  /// `radius_m` of `lat`, `lon` in any state, nearest first, else the first page by id; and
  /// every worker with a tracked mission, with its fence and track.
  func mapData(_ request: HTTPRequest) throws -> HTTPResponse {
    guard let width = try request.int("width", in: 1...100_000),
      let height = try request.int("height", in: 1...100_000)
    else { throw ServiceError.badRequest("give the map's width and height in pixels") }
    var focus: Mission?
    if let id = request.query["mission"] {
      guard let mission = try database.mission(id: id) else { throw Self.noMission(id) }
      focus = mission
    }
    let lat = try request.double("lat", in: -90...90)
    let lon = try request.double("lon", in: -180...180)
    var listCenter: Coordinate?
    let missions: [Mission]
    if lat != nil || lon != nil {
      guard let lat, let lon else { throw ServiceError.badRequest("give both lat and lon") }
      let center = try Coordinate(latitude: lat, longitude: lon)
      let radius =
        try request.double("radius_m", in: 0...Double.greatestFiniteMagnitude)
        ?? Self.defaultRadiusMeters
      missions = try engine.directory.missions(
        within: radius, of: center, limit: Self.mapMissionLimit
      ).map(\.mission)
      listCenter = center
    } else {
      missions = try database.missions(after: nil, limit: Self.mapMissionLimit, inState: nil)
        .missions
    }
    let geometry = MapPageGeometry(
      width: Double(width), height: Double(height), focus: focus,
      track: try focus.map { try database.track(ofMission: $0.id) } ?? [], missions: missions,
      listCenter: listCenter, workers: try trackedWorkers())
    return .json(geometry.json)
  }

  /// The workers with a tracked mission (the first `mapWorkerLimit` by id), with their
  /// missions, tracks and fence states.
  private func trackedWorkers() throws -> [MapPageGeometry.TrackedWorker] {
    let engine = self.engine
    let tracked = try AsyncBridge.wait { await engine.trackedMissions }
    let ids = Array(tracked.keys.sorted().prefix(Self.mapWorkerLimit))
    let views = try workerViews(ids)
    return try ids.compactMap { id in
      guard let missionID = tracked[id], let mission = try database.mission(id: missionID) else {
        return nil
      }
      return MapPageGeometry.TrackedWorker(
        id: id, name: try database.worker(id)?.name, mission: mission,
        track: try database.track(ofMission: mission.id),
        fence: views[id]?.fenceStates?[mission.id])
    }
  }
}
