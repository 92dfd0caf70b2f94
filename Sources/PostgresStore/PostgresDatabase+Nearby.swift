import Foundation
import MissionTracking

/// `nearby` on PostgreSQL: PostGIS reads the candidates (a latitude/longitude box on the GiST
/// index of `location::geometry`, then `ST_DWithin` on the geography), and the proximity grid
/// ranks them, so the answers and their order are decided by the one rule the SQLite store
/// and `serve` use (`SpatialGrid`): haversine distances, the inclusive radius, ties by id.
extension PostgresDatabase {
  /// The stored missions near `center`, nearest first, ties by id: exactly
  /// `SpatialGrid.missions(within:of:where:)` (no `limit`) or
  /// `SpatialGrid.nearest(_:to:within:where:)` over the stored missions with the filter
  /// `{ $0 == state }`, the missions in `due` counting as expired.
  ///
  /// PostGIS measures on a sphere of almost the same radius as the haversine's, so the
  /// candidates are read within a reach a little larger than the radius (1 ppm plus 1 m):
  /// a superset of the answers, which the grid then decides. The index holds degrees, so the
  /// reach becomes the box that holds its circle (`Coordinate.boundingBox`, split in two
  /// across the antimeridian, every longitude over a pole). For the k nearest, the k
  /// matching missions nearest in degrees (the index's order) bound the reach first: any k
  /// of them bound the distance of the k-th nearest.
  ///
  /// - Parameters:
  ///   - radiusMeters: The largest distance returned, ≥ 0; nil for no bound.
  ///   - center: The query point.
  ///   - limit: When given, how many at most (the nearest), ≥ 0.
  ///   - state: When given, only missions in this state (as shown) are considered.
  ///   - due: Missions that count as expired whatever their stored state.
  /// - Throws: `ProximityError.invalidDistance` for a negative or non-finite radius,
  ///   `ProximityError.invalidCount` for a negative limit, `PostgresError`.
  /// - Complexity: O(c log c) for c candidates within the reach.
  package func nearbyMissions(
    within radiusMeters: Double? = nil, of center: Coordinate, limit: Int? = nil,
    state: MissionState? = nil, due: Set<String> = []
  ) throws -> [ProximityMatch] {
    if let radiusMeters, !(radiusMeters.isFinite && radiusMeters >= 0) {
      throw ProximityError.invalidDistance(radiusMeters)
    }
    if let limit, limit < 0 { throw ProximityError.invalidCount(limit) }
    if limit == 0 { return [] }
    let planePoint = "ST_SetSRID(ST_MakePoint(:lon, :lat), 4326)"
    let point = "\(planePoint)::geography"
    // The state as shown: a due mission counts as expired (the grid's payload below).
    let filter =
      switch state {
      case nil: "true"
      case .expired?: "(state = 'expired' OR id = ANY(CAST(:due AS text[])))"
      case _?: "(state = :state AND NOT id = ANY(CAST(:due AS text[])))"
      }
    // Arguments the chosen SQL does not name are not sent.
    let arguments: PostgresArguments = [
      "lon": center.longitude, "lat": center.latitude, "state": state?.rawValue,
      "due": PostgresArray(due.sorted()),
    ]
    let candidates = try withConnection { connection in
      try connection.transaction(isolation: "REPEATABLE READ, READ ONLY") {
        var bound = radiusMeters
        if let limit {
          // Any `limit` matching missions bound the distance of the `limit`-th nearest.
          let nearest = try connection.query(
            """
            SELECT max(d) AS reach, count(*) AS found FROM (
              SELECT ST_Distance(location, \(point), false) AS d FROM missions
              WHERE \(filter) ORDER BY location::geometry <-> \(planePoint) LIMIT :limit) AS k
            """, arguments.merging(["limit": limit]) { $1 })
          if let found = nearest.int64(0, "found"), found >= limit,
            let reach = nearest.double(0, "reach")
          {
            bound = min(bound ?? .infinity, reach)
          }
        }
        let reach = bound.map { $0 * (1 + 1e-6) + 1 } ?? .infinity
        var within = ""
        var candidateArguments = arguments
        if reach < Earth.halfCircumferenceMeters {
          let box = try center.boundingBox(radiusMeters: reach)
          var spans = [(west: box.west, east: box.east)]
          if box.crossesAntimeridian {
            spans = [(box.west, 180), (-180, box.east)]
          } else if box.east == 180 && box.west > -180 {
            // ±180 are one meridian: a box ending on one holds the missions at the other.
            spans.append((-180, -180))
          } else if box.west == -180 && box.east < 180 {
            spans.append((180, 180))
          }
          let envelopes = spans.indices.map {
            "location::geometry && ST_MakeEnvelope(:west\($0), :south, :east\($0), :north, 4326)"
          }
          within = """
             AND (\(envelopes.joined(separator: " OR ")))
            AND ST_DWithin(location, \(point), :reach, false)
            """
          candidateArguments["reach"] = reach
          candidateArguments["south"] = box.south
          candidateArguments["north"] = box.north
          for (span, edges) in spans.enumerated() {
            candidateArguments["west\(span)"] = edges.west
            candidateArguments["east\(span)"] = edges.east
          }
        }
        return try connection.query(
          "SELECT id, lat, lon, state FROM missions WHERE \(filter)\(within)",
          candidateArguments)
      }
    }
    var located: [(id: String, coordinate: Coordinate, payload: MissionState)] = []
    located.reserveCapacity(candidates.count)
    for row in 0..<candidates.count {
      let id = candidates.string(row, "id") ?? ""
      let stored = try Self.state(candidates.string(row, "state"))
      located.append(
        (
          id,
          Coordinate(
            uncheckedLatitude: candidates.double(row, "lat") ?? 0,
            longitude: candidates.double(row, "lon") ?? 0),
          due.contains(id) ? .expired : stored
        ))
    }
    let grid = try SpatialGrid(located)
    let wanted: ((MissionState) -> Bool)? = state.map { wanted in { $0 == wanted } }
    if let limit {
      return try grid.nearest(limit, to: center, within: radiusMeters, where: wanted)
    }
    return try grid.missions(
      within: radiusMeters ?? Earth.halfCircumferenceMeters, of: center, where: wanted)
  }
}
