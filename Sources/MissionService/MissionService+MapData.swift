import Foundation
import MissionProximity
import MissionStore
import MissionTracking

extension MissionService {
  /// How many missions the map draws, as the page lists them.
  static let mapMissionLimit = 100

  /// `GET /map.json?width=&height=[&mission=ID][&lat=&lon=&radius_m=]`: the live map page's
  /// geometry (`MapPageGeometry`) for a map of `width` × `height` pixels, with `mission` in
  /// focus (its fence and delivered track) and the missions the page lists: those within
  /// `radius_m` of `lat`, `lon` in any state, nearest first, else the first page by id.
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
      missions = try database.missions(after: nil, limit: Self.mapMissionLimit).missions
    }
    let geometry = MapPageGeometry(
      width: Double(width), height: Double(height), focus: focus,
      track: try focus.map { try database.track(ofMission: $0.id) } ?? [], missions: missions,
      listCenter: listCenter)
    return .json(geometry.json)
  }
}
