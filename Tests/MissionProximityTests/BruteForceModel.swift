import MissionProximity

/// The reference model: a plain list of missions, scanned in full with
/// `Coordinate.distance(to:)` and sorted by (distance, id).
struct BruteForceModel {
  var missions: [String: (coordinate: Coordinate, tag: Int)] = [:]

  private func sorted(_ matches: [ProximityMatch]) -> [ProximityMatch] {
    matches.sorted {
      $0.distanceMeters < $1.distanceMeters
        || ($0.distanceMeters == $1.distanceMeters && $0.id < $1.id)
    }
  }

  private func all(from center: Coordinate, where predicate: ((Int) -> Bool)?)
    -> [ProximityMatch]
  {
    missions.compactMap { id, mission in
      if let predicate, !predicate(mission.tag) { return nil }
      return ProximityMatch(id: id, distanceMeters: center.distance(to: mission.coordinate))
    }
  }

  func within(_ radius: Double, of center: Coordinate, where predicate: ((Int) -> Bool)? = nil)
    -> [ProximityMatch]
  {
    sorted(all(from: center, where: predicate).filter { $0.distanceMeters <= radius })
  }

  func nearest(
    _ k: Int, to center: Coordinate, within radius: Double = .infinity,
    where predicate: ((Int) -> Bool)? = nil
  ) -> [ProximityMatch] {
    Array(within(radius, of: center, where: predicate).prefix(k))
  }

  func inBox(
    _ box: BoundingBox, from origin: Coordinate, limit: Int? = nil,
    where predicate: ((Int) -> Bool)? = nil
  ) -> [ProximityMatch] {
    let inside = missions.filter { box.contains($0.value.coordinate) }
    let model = BruteForceModel(missions: inside)
    let all = model.sorted(model.all(from: origin, where: predicate))
    return limit.map { Array(all.prefix($0)) } ?? all
  }
}

/// Whether two result lists have the same ids in the same order and distances within 1e-6 m.
func agree(_ a: [ProximityMatch], _ b: [ProximityMatch]) -> Bool {
  a.count == b.count
    && zip(a, b).allSatisfy {
      $0.id == $1.id && abs($0.distanceMeters - $1.distanceMeters) <= 1e-6
    }
}
