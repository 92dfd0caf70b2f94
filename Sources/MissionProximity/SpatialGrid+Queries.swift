extension SpatialGrid {
  /// The missions within `radiusMeters` of `center`, nearest first, ties by id.
  ///
  /// The boundary is inclusive. A radius of 0 returns the missions exactly at `center`; a
  /// radius of `Earth.halfCircumferenceMeters` or more returns every mission.
  /// - Parameters:
  ///   - radiusMeters: Search radius in metres, ≥ 0.
  ///   - center: The query point.
  ///   - predicate: When given, only missions whose payload passes it are returned.
  /// - Throws: `ProximityError.invalidDistance` for a negative or non-finite radius.
  /// - Complexity: O(cells covered + missions in them + m log m) for m results.
  @inlinable
  public func missions(
    within radiusMeters: Double, of center: Coordinate,
    where predicate: ((Payload) -> Bool)? = nil
  ) throws(ProximityError) -> [ProximityMatch] {
    guard radiusMeters.isFinite, radiusMeters >= 0 else {
      throw .invalidDistance(radiusMeters)
    }
    return storage.missions(within: radiusMeters, of: center, filter: slotFilter(predicate))
  }

  /// The `k` missions nearest to `center`, nearest first, ties by id; optionally only those
  /// within `maxRadiusMeters` (inclusive) and whose payload passes `predicate`.
  ///
  /// The predicate is applied before the limit: the result holds the k nearest *matching*
  /// missions. Fewer than `k` come back when fewer match.
  /// - Parameters:
  ///   - k: How many at most, ≥ 0.
  ///   - center: The query point.
  ///   - maxRadiusMeters: When given, the largest distance returned, ≥ 0.
  ///   - predicate: When given, only missions whose payload passes it are considered.
  /// - Throws: `ProximityError.invalidCount` for a negative `k`, `.invalidDistance` for a
  ///   negative or non-finite radius.
  /// - Complexity: about O(k log k + cells visited); the search grows a rectangle of cells
  ///   around the centre and stops as soon as no unvisited cell can hold a closer mission.
  @inlinable
  public func nearest(
    _ k: Int, to center: Coordinate, within maxRadiusMeters: Double? = nil,
    where predicate: ((Payload) -> Bool)? = nil
  ) throws(ProximityError) -> [ProximityMatch] {
    guard k >= 0 else { throw .invalidCount(k) }
    if let maxRadiusMeters, !(maxRadiusMeters.isFinite && maxRadiusMeters >= 0) {
      throw .invalidDistance(maxRadiusMeters)
    }
    return storage.nearest(
      k, to: center, maxRadiusMeters: maxRadiusMeters ?? .infinity,
      filter: slotFilter(predicate))
  }

  /// `missions(within:of:where:)`, each match with its payload: what a caller that keeps
  /// its records as payloads needs, without a second lookup by id per match.
  ///
  /// - Throws: `ProximityError.invalidDistance` for a negative or non-finite radius.
  /// - Complexity: As `missions(within:of:where:)`.
  @inlinable
  public func missionsWithPayloads(
    within radiusMeters: Double, of center: Coordinate,
    where predicate: ((Payload) -> Bool)? = nil
  ) throws(ProximityError) -> [(match: ProximityMatch, payload: Payload)] {
    var found: [(match: ProximityMatch, payload: Payload)] = []
    try forEachMission(within: radiusMeters, of: center, where: predicate.map(Self.byPointer)) {
      found.append(($0, $1.pointee))
    }
    return found
  }

  /// `nearest(_:to:within:where:)`, each match with its payload.
  ///
  /// - Throws: `ProximityError.invalidCount` for a negative `k`, `.invalidDistance` for a
  ///   negative or non-finite radius.
  /// - Complexity: As `nearest(_:to:within:where:)`.
  @inlinable
  public func nearestWithPayloads(
    _ k: Int, to center: Coordinate, within maxRadiusMeters: Double? = nil,
    where predicate: ((Payload) -> Bool)? = nil
  ) throws(ProximityError) -> [(match: ProximityMatch, payload: Payload)] {
    var found: [(match: ProximityMatch, payload: Payload)] = []
    try forEachNearest(
      k, to: center, within: maxRadiusMeters, where: predicate.map(Self.byPointer)
    ) {
      found.append(($0, $1.pointee))
    }
    return found
  }

  /// Calls `body` with each result of `missions(within:of:where:)` in order and a pointer to
  /// its payload, valid during the call: a caller that turns each result into output (a
  /// response body) copies no payload and builds no array of results. `predicate` too is
  /// given a pointer, so that filtering on one field copies nothing else.
  ///
  /// - Throws: `ProximityError.invalidDistance` for a negative or non-finite radius (before
  ///   any call of `body`).
  /// - Complexity: As `missions(within:of:where:)`.
  @inlinable
  public func forEachMission(
    within radiusMeters: Double, of center: Coordinate,
    where predicate: ((UnsafePointer<Payload>) -> Bool)? = nil,
    _ body: (ProximityMatch, UnsafePointer<Payload>) -> Void
  ) throws(ProximityError) {
    guard radiusMeters.isFinite, radiusMeters >= 0 else {
      throw .invalidDistance(radiusMeters)
    }
    visit(where: predicate, body) { filter in
      storage.candidates(within: radiusMeters, of: center, filter: filter)
    }
  }

  /// Calls `body` with each result of `nearest(_:to:within:where:)` in order and a pointer
  /// to its payload, valid during the call (see `forEachMission(within:of:where:_:)`).
  ///
  /// - Throws: `ProximityError.invalidCount` for a negative `k`, `.invalidDistance` for a
  ///   negative or non-finite radius (before any call of `body`).
  /// - Complexity: As `nearest(_:to:within:where:)`.
  @inlinable
  public func forEachNearest(
    _ k: Int, to center: Coordinate, within maxRadiusMeters: Double? = nil,
    where predicate: ((UnsafePointer<Payload>) -> Bool)? = nil,
    _ body: (ProximityMatch, UnsafePointer<Payload>) -> Void
  ) throws(ProximityError) {
    guard k >= 0 else { throw .invalidCount(k) }
    if let maxRadiusMeters, !(maxRadiusMeters.isFinite && maxRadiusMeters >= 0) {
      throw .invalidDistance(maxRadiusMeters)
    }
    visit(where: predicate, body) { filter in
      storage.nearestCandidates(
        k, to: center, maxRadiusMeters: maxRadiusMeters ?? .infinity, filter: filter)
    }
  }

  /// Calls `body` with each of the `candidates` (chosen with a slot filter made of
  /// `predicate`) and a pointer to its payload. Not the payload itself: passing a value read
  /// from the array to an unknown closure copies it, and a copy retains every reference in
  /// it, atomically, on memory the server's threads share.
  @inlinable
  func visit(
    where predicate: ((UnsafePointer<Payload>) -> Bool)?,
    _ body: (ProximityMatch, UnsafePointer<Payload>) -> Void,
    candidates: (((Int32) -> Bool)?) -> [GridCandidate]
  ) {
    payloads.withUnsafeBufferPointer { payloads in
      // No payloads, no missions: nothing to visit.
      guard let base = payloads.baseAddress else { return }
      let filter = predicate.map { predicate in { (slot: Int32) in predicate(base + Int(slot)) } }
      for candidate in candidates(filter) {
        body(storage.match(candidate), base + Int(candidate.slot))
      }
    }
  }

  /// A predicate on a payload as one on a pointer to it.
  @inlinable
  static func byPointer(_ predicate: @escaping (Payload) -> Bool) -> (UnsafePointer<Payload>) ->
    Bool
  {
    { predicate($0.pointee) }
  }

  /// The missions inside `box` (edges inclusive; a box with `west > east` crosses ±180),
  /// ordered by distance from `origin` then id, at most `limit` of them.
  ///
  /// - Parameters:
  ///   - box: The latitude/longitude box.
  ///   - origin: The point distances are measured from (for example the box's centre or the
  ///     worker's position).
  ///   - limit: When given, how many at most (the nearest to `origin`), ≥ 0.
  ///   - predicate: When given, only missions whose payload passes it are considered; it is
  ///     applied before the limit.
  /// - Throws: `ProximityError.invalidCount` for a negative limit.
  /// - Complexity: O(cells covered + missions in them + m log m).
  @inlinable
  public func missions(
    in box: BoundingBox, sortedByDistanceFrom origin: Coordinate, limit: Int? = nil,
    where predicate: ((Payload) -> Bool)? = nil
  ) throws(ProximityError) -> [ProximityMatch] {
    if let limit, limit < 0 { throw .invalidCount(limit) }
    return storage.missions(in: box, origin: origin, limit: limit, filter: slotFilter(predicate))
  }
}
