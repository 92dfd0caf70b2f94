import Foundation

/// A found mission during a query: its distance and slot.
@usableFromInline typealias GridCandidate = (distance: Double, slot: Int32)

/// Metres per degree of a great circle on the model sphere.
private let metersPerDegree = Earth.meanRadiusMeters * radiansPerDegree

/// Slack added to every geometric pre-filter and removed from every stopping bound, so that
/// rounding (about 1e-14 degrees here) can never drop a true match. The haversine distance
/// alone decides what is returned.
private let slackDegrees = 1e-9

/// A lower bound in metres on the distance from the query to any point at least `degrees`
/// of latitude away, made slightly smaller so rounding never makes it too large.
@inline(__always)
private func latitudeBound(_ degrees: Double) -> Double {
  max(0, (degrees - slackDegrees) * metersPerDegree * (1 - 1e-9) - 1e-6)
}

/// Sorts `candidates` by distance, then id: a plain sort on the distance, then each run of
/// equal distances (rare) sorted by id, which is cheaper than comparing ids in every step.
func sortInResultOrder(_ candidates: inout [GridCandidate], ids: [String]) {
  if candidates.count <= 64 {
    // Insertion sort: no buffer allocation, and few moves for the short lists typical here.
    candidates.withUnsafeMutableBufferPointer { buffer in
      for index in buffer.indices.dropFirst() {
        let item = buffer[index]
        var hole = index
        while hole > 0 && buffer[hole - 1].distance > item.distance {
          buffer[hole] = buffer[hole - 1]
          hole -= 1
        }
        buffer[hole] = item
      }
    }
  } else {
    candidates.sort { $0.distance < $1.distance }
  }
  var start = 0
  while start < candidates.count {
    var end = start + 1
    while end < candidates.count && candidates[end].distance == candidates[start].distance {
      end += 1
    }
    if end - start > 1 { candidates[start..<end].sort { ids[Int($0.slot)] < ids[Int($1.slot)] } }
    start = end
  }
}

/// The smallest angle in degrees, going either way round, from longitude `lon` to the
/// longitude interval [`low`, `high`] (within [-180, 180]); 0 inside it.
private func arcSeparation(_ lon: Double, _ low: Double, _ high: Double) -> Double {
  if lon >= low && lon <= high { return 0 }
  func angle(_ a: Double, _ b: Double) -> Double {
    let d = abs(a - b).truncatingRemainder(dividingBy: 360)
    return min(d, 360 - d)
  }
  return min(angle(lon, low), angle(lon, high))
}

extension GridStorage {
  /// The results for `candidates`, which must already be in order.
  func matches(_ candidates: [GridCandidate]) -> [ProximityMatch] {
    candidates.map(match)
  }

  /// The result for one candidate.
  @usableFromInline
  func match(_ candidate: GridCandidate) -> ProximityMatch {
    ProximityMatch(id: ids[Int(candidate.slot)], distanceMeters: candidate.distance)
  }

  /// Every live mission within `radiusMeters` (inclusive) of `center` that passes `filter`,
  /// nearest first, ties by id.
  @usableFromInline
  func missions(
    within radiusMeters: Double, of center: Coordinate, filter: ((Int32) -> Bool)?
  ) -> [ProximityMatch] {
    matches(candidates(within: radiusMeters, of: center, filter: filter))
  }

  /// `missions(within:of:filter:)` as slots, in result order.
  @usableFromInline
  func candidates(
    within radiusMeters: Double, of center: Coordinate, filter: ((Int32) -> Bool)?
  ) -> [GridCandidate] {
    guard count > 0 else { return [] }
    let query = QueryPoint(center)
    let angular = radiusMeters / Earth.meanRadiusMeters
    let latDegrees = angular / radiansPerDegree
    let latReach = latDegrees + slackDegrees + latDegrees * 1e-9
    let south = center.latitude - latReach
    let north = center.latitude + latReach
    var spans = ColumnSpans()
    var lonReach = Double.infinity
    if angular < .pi && south > -90 && north < 90 {
      // Matuschek's half-width of the circle's bounding box: asin(sin r / cos φ).
      let halfWidth =
        asin(min(1, sin(angular) / cos(center.latitude * radiansPerDegree))) / radiansPerDegree
      lonReach = halfWidth + slackDegrees + halfWidth * 1e-9
    }
    let lo = center.longitude - lonReach
    let hi = center.longitude + lonReach
    if hi - lo >= 360 {
      lonReach = .infinity
      spans.add(0, geometry.columns - 1)
    } else if lo < -180 {
      geometry.addColumns(from: lo + 360, to: 180, into: &spans)
      geometry.addColumns(from: -180, to: hi, into: &spans)
    } else if hi > 180 {
      geometry.addColumns(from: lo, to: 180, into: &spans)
      geometry.addColumns(from: -180, to: hi - 360, into: &spans)
    } else {
      geometry.addColumns(from: lo, to: hi, into: &spans)
    }
    let cutoff = QueryPoint.haversineCutoff(radiusMeters: radiusMeters)
    var found: [GridCandidate] = []
    found.reserveCapacity(64)
    let rowLow = geometry.row(south)
    let rowHigh = geometry.row(north)
    let columns = geometry.columns
    heads.withUnsafeBufferPointer { heads in
      entries.withUnsafeBufferPointer { entries in
        for row in rowLow...rowHigh {
          let base = row * columns
          for index in 0..<spans.count {
            let span = spans[index]
            for column in span.low...span.high {
              var slot = heads[base + column]
              while slot >= 0 {
                let entry = entries[Int(slot)]
                defer { slot = entry.next }
                guard abs(entry.latitude - query.latitude) <= latReach else { continue }
                if lonReach < .infinity {
                  let deltaLon = longitudeDifference(from: query.longitude, to: entry.longitude)
                  guard abs(deltaLon) <= lonReach else { continue }
                }
                let h = query.haversine(toLatitude: entry.latitude, longitude: entry.longitude)
                guard h <= cutoff else { continue }
                let distance = QueryPoint.meters(haversine: h)
                guard distance <= radiusMeters else { continue }
                if let filter, !filter(slot) { continue }
                found.append((distance, slot))
              }
            }
          }
        }
      }
    }
    sortInResultOrder(&found, ids: ids)
    return found
  }

  /// Every live mission inside `box` that passes `filter`, ordered by distance from `origin`
  /// then id, at most `limit` of them.
  @usableFromInline
  func missions(
    in box: BoundingBox, origin: Coordinate, limit: Int?, filter: ((Int32) -> Bool)?
  ) -> [ProximityMatch] {
    guard count > 0, limit != 0 else { return [] }
    let query = QueryPoint(origin)
    var spans = ColumnSpans()
    if box.west == -180 && box.east == 180 {
      spans.add(0, geometry.columns - 1)
    } else if box.crossesAntimeridian {
      geometry.addColumns(from: box.west, to: 180, into: &spans)
      geometry.addColumns(from: -180, to: box.east, into: &spans)
    } else {
      geometry.addColumns(from: box.west, to: box.east, into: &spans)
    }
    var heap = BoundedHeap(capacity: limit, count: count, ids: ids)
    let columns = geometry.columns
    for row in geometry.row(box.south)...geometry.row(box.north) {
      let base = row * columns
      for index in 0..<spans.count {
        let span = spans[index]
        for column in span.low...span.high {
          var slot = heads[base + column]
          while slot >= 0 {
            let entry = entries[Int(slot)]
            defer { slot = entry.next }
            let position = Coordinate(
              uncheckedLatitude: entry.latitude, longitude: entry.longitude)
            guard box.contains(position) else { continue }
            if let filter, !filter(slot) { continue }
            heap.offer(
              (query.distance(toLatitude: entry.latitude, longitude: entry.longitude), slot))
          }
        }
      }
    }
    return matches(heap.sorted())
  }

  /// The `k` live missions nearest to `center` that pass `filter` and lie within
  /// `maxRadiusMeters` (inclusive), nearest first, ties by id.
  ///
  /// Searches outward from the centre's cell, one strip of cells at a time on whichever side
  /// (south, north, west, east) is nearest to the centre, and stops when the k-th best
  /// distance so far is below the smallest distance any unvisited cell could hold. The bound
  /// for a side is exact spherical geometry: R·Δφ for a row edge, and the cross-track
  /// distance R·asin(sin Δλ · cos φ) to the meridian of a column edge.
  @usableFromInline
  func nearest(
    _ k: Int, to center: Coordinate, maxRadiusMeters: Double, filter: ((Int32) -> Bool)?
  ) -> [ProximityMatch] {
    matches(
      nearestCandidates(k, to: center, maxRadiusMeters: maxRadiusMeters, filter: filter))
  }

  /// `nearest(_:to:maxRadiusMeters:filter:)` as slots, in result order.
  @usableFromInline
  func nearestCandidates(
    _ k: Int, to center: Coordinate, maxRadiusMeters: Double, filter: ((Int32) -> Bool)?
  ) -> [GridCandidate] {
    guard count > 0, k > 0 else { return [] }
    let query = QueryPoint(center)
    let centerLon = center.longitude == 180 ? -180 : center.longitude
    var heap = BoundedHeap(capacity: k, count: count, ids: ids)
    let rows = geometry.rows
    let columns = geometry.columns
    let wraps = geometry.wraps

    func lonBound(_ degrees: Double) -> Double {
      let d = min(max(0, degrees - slackDegrees), 90)
      let angle = asin(min(1, sin(d * radiansPerDegree) * query.cosPhi))
      return max(0, angle * Earth.meanRadiusMeters * (1 - 1e-9) - 1e-6)
    }

    heads.withUnsafeBufferPointer { heads in
      entries.withUnsafeBufferPointer { entries in
        func visit(_ row: Int, _ column: Int) {
          let wrapped =
            column < 0 ? column + columns : (column >= columns ? column - columns : column)
          var slot = heads[row * columns + wrapped]
          while slot >= 0 {
            let entry = entries[Int(slot)]
            defer { slot = entry.next }
            let worst = heap.isFull ? heap.worstDistance : maxRadiusMeters
            if latitudeBound(abs(entry.latitude - query.latitude)) > worst { continue }
            if let filter, !filter(slot) { continue }
            let distance = query.distance(toLatitude: entry.latitude, longitude: entry.longitude)
            guard distance <= maxRadiusMeters else { continue }
            heap.offer((distance, slot))
          }
        }

        var south = geometry.row(center.latitude)
        var north = south
        var west = geometry.pointColumn(center.longitude)
        var east = west
        visit(south, west)
        var southBound =
          south > 0 ? latitudeBound(center.latitude - geometry.rowSouth(south)) : .infinity
        var northBound =
          north < rows - 1
          ? latitudeBound(geometry.rowSouth(north + 1) - center.latitude) : .infinity
        // The unvisited columns west and east of the rectangle. When the columns wrap they
        // are the arc beyond the rectangle's edges. When they do not, the edge columns also
        // hold every position beyond the grid (clamped), so the west part is the longitudes
        // [-180, west edge) and the east part [east edge, 180], and the way to them may
        // cross ±180.
        func westBoundNow() -> Double {
          if wraps {
            guard east - west + 1 < columns else { return .infinity }
            return lonBound(centerLon - geometry.columnWest(west))
          }
          guard west > 0 else { return .infinity }
          return lonBound(arcSeparation(centerLon, -180, geometry.columnWest(west)))
        }
        func eastBoundNow() -> Double {
          if wraps {
            guard east - west + 1 < columns else { return .infinity }
            return lonBound(geometry.columnWest(east + 1) - centerLon)
          }
          guard east < columns - 1 else { return .infinity }
          return lonBound(arcSeparation(centerLon, geometry.columnWest(east + 1), 180))
        }
        var westBound = westBoundNow()
        var eastBound = eastBoundNow()
        while true {
          let bound = min(southBound, northBound, westBound, eastBound)
          if bound == .infinity || bound > maxRadiusMeters { break }
          if heap.isFull && heap.worstDistance < bound { break }
          if bound == southBound {
            south -= 1
            for column in west...east { visit(south, column) }
            southBound =
              south > 0 ? latitudeBound(center.latitude - geometry.rowSouth(south)) : .infinity
          } else if bound == northBound {
            north += 1
            for column in west...east { visit(north, column) }
            northBound =
              north < rows - 1
              ? latitudeBound(geometry.rowSouth(north + 1) - center.latitude) : .infinity
          } else {
            if bound == westBound {
              west -= 1
              for row in south...north { visit(row, west) }
            } else {
              east += 1
              for row in south...north { visit(row, east) }
            }
            // Covering one side can close the other when the columns wrap.
            westBound = westBoundNow()
            eastBound = eastBoundNow()
          }
        }
      }
    }
    return heap.sorted()
  }
}
