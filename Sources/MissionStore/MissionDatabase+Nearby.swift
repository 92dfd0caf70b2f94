import Foundation
import MissionTracking

extension MissionDatabase {
  /// The stored missions near `center`, nearest first, ties by id, read from the
  /// `missions_by_cell` index without loading the other missions.
  ///
  /// The answers are exactly those of the in-memory grid (`proximityIndex()`):
  /// `SpatialGrid.missions(within:of:where:)` when `limit` is nil and
  /// `SpatialGrid.nearest(_:to:within:where:)` when it is given, with the filter
  /// `{ $0 == state }`. Distances are `Coordinate.distance(to:)` (haversine); the radius
  /// boundary is inclusive; the state filter is applied before the limit; ±180 are one
  /// meridian; a circle over a pole spans every longitude; a radius of
  /// `Earth.halfCircumferenceMeters` or more returns every matching mission.
  ///
  /// - Parameters:
  ///   - radiusMeters: The largest distance returned, ≥ 0; nil for no bound (then `limit`
  ///     says how many: the k nearest however far; with neither, every matching mission).
  ///   - center: The query point.
  ///   - limit: When given, how many at most (the nearest), ≥ 0.
  ///   - state: When given, only missions in this state are considered.
  ///   - due: Missions that count as expired whatever their stored state: those past their
  ///     deadline that the expiry has not recorded (`dueMissionIDs(at:)`), as a command
  ///     that only reads shows them.
  /// - Returns: The matches, nearest first, ties by id.
  /// - Throws: `ProximityError.invalidDistance` for a negative or non-finite radius,
  ///   `ProximityError.invalidCount` for a negative limit, `StoreError` when SQLite fails.
  /// - Complexity: O(c + m log m) for c missions in the cells of the circle's bounding box
  ///   and m results. With a limit and no radius the circle grows until it holds `limit`
  ///   matches (each step at least doubles it), so c is about the missions of the smallest
  ///   such circle's cells. A circle whose box would need more than 2048 key ranges reads
  ///   the latitude band of the box instead.
  package func nearbyMissions(
    within radiusMeters: Double? = nil, of center: Coordinate, limit: Int? = nil,
    state: MissionState? = nil, due: Set<String> = []
  ) throws -> [ProximityMatch] {
    if let radiusMeters, !(radiusMeters.isFinite && radiusMeters >= 0) {
      throw ProximityError.invalidDistance(radiusMeters)
    }
    if let limit, limit < 0 { throw ProximityError.invalidCount(limit) }
    return try withConnection { connection in
      try connection.transactionForReading {
        guard let limit else {
          return try matchesLocked(
            within: radiusMeters ?? .infinity, of: center, state: state, due: due, keeping: nil,
            connection
          ).sorted()
        }
        guard limit > 0 else { return [] }
        let bound = radiusMeters ?? .infinity
        var searched = min(bound, Self.firstNearestRadiusMeters)
        while true {
          let found = try matchesLocked(
            within: searched, of: center, state: state, due: due, keeping: limit, connection)
          // Every mission within `searched` was offered, every other one is farther: once
          // `limit` were offered, the `limit` best of them are the nearest overall.
          if found.offered >= limit || searched >= bound
            || searched >= Earth.halfCircumferenceMeters
          {
            return found.sorted()
          }
          // Grow towards the radius that would hold `limit` at the density seen so far.
          var next = searched * 4
          if found.offered > 0 {
            next = max(
              searched * 2, searched * (Double(limit) / Double(found.offered)).squareRoot() * 1.5)
          }
          searched = min(bound, next)
        }
      }
    }
  }

  /// The first circle of a k-nearest search, in metres: a few cells, cheap even in a city.
  static let firstNearestRadiusMeters = 1000.0

  /// The missions within `radiusMeters` (inclusive; infinity for all) of `center` in
  /// `state` (all states when nil; the missions in `due` count as expired), all offered to a
  /// `BestMatches` that keeps the best `keeping` (all when nil).
  ///
  /// The bounding box, its slack and the pre-filters are those of
  /// `SpatialGrid.missions(within:of:where:)`, which never drop a true match; the haversine
  /// distance alone decides.
  private func matchesLocked(
    within radiusMeters: Double, of center: Coordinate, state: MissionState?,
    due: Set<String>, keeping: Int?, _ connection: SQLiteConnection
  ) throws -> BestMatches {
    let slackDegrees = 1e-9
    var latReach = Double.infinity
    var lonReach = Double.infinity
    var ranges: [ClosedRange<Int64>] = [0...MissionCell.maxKey]
    if radiusMeters < Earth.halfCircumferenceMeters {
      let angular = radiusMeters / Earth.meanRadiusMeters
      let latDegrees = angular / radiansPerDegree
      latReach = latDegrees + slackDegrees + latDegrees * 1e-9
      let south = center.latitude - latReach
      let north = center.latitude + latReach
      if angular < .pi && south > -90 && north < 90 {
        // Matuschek's half-width of the circle's bounding box: asin(sin r / cos φ).
        let halfWidth =
          asin(min(1, sin(angular) / cos(center.latitude * radiansPerDegree)))
          / radiansPerDegree
        lonReach = halfWidth + slackDegrees + halfWidth * 1e-9
      }
      let lo = center.longitude - lonReach
      let hi = center.longitude + lonReach
      let longitudes: [ClosedRange<Double>]
      if !(hi - lo < 360) {
        lonReach = .infinity
        longitudes = [-180...180]
      } else if lo < -180 {
        longitudes = [(lo + 360)...180, -180...hi]
      } else if hi > 180 {
        longitudes = [lo...180, -180...(hi - 360)]
      } else {
        longitudes = [lo...hi]
      }
      ranges = MissionCell.keyRanges(south: south, north: north, longitudes: longitudes)
    }
    // Expired missions and those that count as expired: every state is read, the id of
    // each mission in the circle too.
    let dueCountAsWanted = state == .expired && !due.isEmpty
    let select =
      if dueCountAsWanted {
        try connection.cached(
          """
          SELECT lat, lon, id, state FROM missions
          WHERE \(MissionCell.sqlExpression) BETWEEN :low AND :high
          """)
      } else if let state {
        try {
          let s = try connection.cached(
            """
            SELECT lat, lon, id FROM missions
            WHERE \(MissionCell.sqlExpression) BETWEEN :low AND :high AND state = :state
            """)
          try s.bind(state.rawValue, to: try s.parameter("state"))
          return s
        }()
      } else {
        try connection.cached(
          """
          SELECT lat, lon, id FROM missions
          WHERE \(MissionCell.sqlExpression) BETWEEN :low AND :high
          """)
      }
    defer { select.reset() }
    // Resolved once: the loops below look no name up.
    let (low, high) = (try select.parameter("low"), try select.parameter("high"))
    let (latColumn, lonColumn, idColumn) = (
      try select.column("lat"), try select.column("lon"), try select.column("id")
    )
    let stateColumn = dueCountAsWanted ? try select.column("state") : nil
    var found = BestMatches(capacity: keeping)
    for range in ranges {
      select.rewind()
      try select.bind(range.lowerBound, to: low)
      try select.bind(range.upperBound, to: high)
      while try select.step() {
        let lat = select.double(latColumn)
        let lon = select.double(lonColumn)
        guard abs(lat - center.latitude) <= latReach else { continue }
        if lonReach < .infinity {
          guard abs(longitudeDifference(from: center.longitude, to: lon)) <= lonReach else {
            continue
          }
        }
        let distance = center.distance(to: Coordinate(uncheckedLatitude: lat, longitude: lon))
        guard distance <= radiusMeters else { continue }
        // The id is read only for a match that could be kept (a k-nearest search over a
        // large circle sees many that cannot).
        if let stateColumn {
          let id = select.string(idColumn) ?? ""
          guard select.string(stateColumn) == MissionState.expired.rawValue || due.contains(id)
          else { continue }
          if found.mightKeep(distance: distance) {
            found.offer(ProximityMatch(id: id, distanceMeters: distance))
          } else {
            found.count()
          }
        } else if found.mightKeep(distance: distance) {
          let id = select.string(idColumn) ?? ""
          // In `state` as stored, but expired by its deadline.
          if state != nil, due.contains(id) { continue }
          found.offer(ProximityMatch(id: id, distanceMeters: distance))
        } else {
          found.count()
        }
      }
    }
    return found
  }
}
