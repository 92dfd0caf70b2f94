import Foundation
import MissionProximity
import Testing

private func point(_ lat: Double, _ lon: Double) -> Coordinate {
  try! Coordinate(latitude: lat, longitude: lon)
}

private let metersPerDegree = Earth.meanRadiusMeters * Double.pi / 180

@Suite struct CoordinateValidationTests {
  @Test(arguments: [Double.nan, .infinity, -.infinity, 90.000001, -91, 1e300])
  func badLatitudesAreRejectedWithTheirValue(_ lat: Double) {
    #expect {
      _ = try Coordinate(latitude: lat, longitude: 0)
    } throws: { error in
      guard case .invalidLatitude(let value) = error as? ProximityError else { return false }
      return value.isNaN ? lat.isNaN : value == lat
    }
  }

  @Test(arguments: [Double.nan, .infinity, 180.0000001, -181])
  func badLongitudesAreRejectedWithTheirValue(_ lon: Double) {
    #expect(throws: ProximityError.self) { try Coordinate(latitude: 0, longitude: lon) }
    #expect("\(ProximityError.invalidLongitude(181))".contains("181"))
  }

  @Test func theEdgesOfTheRangesAreAccepted() throws {
    for (lat, lon) in [(90.0, 180.0), (-90.0, -180.0), (0.0, 0.0)] {
      let c = try Coordinate(latitude: lat, longitude: lon)
      #expect(c.latitude == lat && c.longitude == lon)
    }
  }
}

@Suite struct DistanceTests {
  @Test func identicalPointsAreExactlyZeroApart() {
    for p in [point(0, 0), point(59.3293, 18.0686), point(90, 45), point(-90, 0), point(12, 180)] {
      #expect(p.distance(to: p) == 0)
    }
  }

  @Test func longitudes180AndMinus180AreTheSameMeridian() {
    #expect(point(12.5, 180).distance(to: point(12.5, -180)) == 0)
    #expect(point(-33, -180).distance(to: point(-33, 180)) == 0)
  }

  @Test func antipodesArePiTimesRadiusAndNeverNaN() {
    let pairs = [
      (point(0, 0), point(0, 180)), (point(90, 0), point(-90, 0)),
      (point(45, 10), point(-45, -170)), (point(-12.25, 179.5), point(12.25, -0.5)),
    ]
    for (a, b) in pairs {
      let d = a.distance(to: b)
      #expect(!d.isNaN)
      #expect(abs(d - Double.pi * Earth.meanRadiusMeters) < 1e-3)
    }
  }

  @Test func oneDegreeOfTheEquatorIsRadiusTimesPiOver180() {
    #expect(abs(point(0, 0).distance(to: point(0, 1)) - metersPerDegree) < 1e-6)
    #expect(abs(point(0, 0).distance(to: point(1, 0)) - metersPerDegree) < 1e-6)
    #expect(abs(metersPerDegree - 111_195.08) < 0.01)
  }

  @Test func pairsAcrossTheAntimeridianTakeTheShortWay() {
    #expect(abs(point(0, 179.5).distance(to: point(0, -179.5)) - metersPerDegree) < 1e-6)
    #expect(abs(point(0, -179.75).distance(to: point(0, 179.75)) - metersPerDegree / 2) < 1e-6)
  }

  /// Ed Williams, Aviation Formulary, worked example: LAX (33°57'N 118°24'W) to
  /// JFK (40°38'N 73°47'W) is 0.623585 rad (2144 nm), initial course 66°.
  @Test func laxToJfkMatchesTheAviationFormularyExample() {
    let lax = point(33 + 57.0 / 60, -(118 + 24.0 / 60))
    let jfk = point(40 + 38.0 / 60, -(73 + 47.0 / 60))
    let radians = lax.distance(to: jfk) / Earth.meanRadiusMeters
    #expect(abs(radians - 0.623585) < 1e-6)
    #expect(abs(lax.initialBearingDegrees(to: jfk) - 65.89) < 0.01)
  }

  @Test func distanceIsSymmetric() {
    var rng = SplitMix64(seed: 7)
    for _ in 0..<500 {
      let a = point(.random(in: -90...90, using: &rng), .random(in: -180...180, using: &rng))
      let b = point(.random(in: -90...90, using: &rng), .random(in: -180...180, using: &rng))
      #expect(a.distance(to: b) == b.distance(to: a))
    }
  }
}

@Suite struct GeographicLibCrossCheckTests {
  /// 1,000 seeded pairs (uniform, short, antimeridian, polar, near-antipodal) against
  /// GeographicLib's sphere of the same radius: the haversine is exact to 0.1 mm.
  @Test func haversineMatchesGeographicLibOnTheSameSphere() throws {
    let pairs = try GeodesyPair.load()
    #expect(pairs.count == 1000)
    var worst = 0.0
    for pair in pairs {
      let d = point(pair.lat1, pair.lon1).distance(to: point(pair.lat2, pair.lon2))
      worst = max(worst, abs(d - pair.sphereMeters))
    }
    #expect(worst < 1e-4)
  }

  @Test func initialBearingMatchesGeographicLibAwayFromSingularities() throws {
    for pair in try GeodesyPair.load()
    where abs(pair.lat1) < 89 && pair.sphereMeters < 19_000_000 && pair.sphereMeters > 1 {
      let bearing = point(pair.lat1, pair.lon1).initialBearingDegrees(
        to: point(pair.lat2, pair.lon2))
      var diff = abs(bearing - pair.sphereAzimuthDegrees)
      diff = min(diff, 360 - diff)
      #expect(diff < 1e-6, "\(pair)")
    }
  }

  /// The sphere's error against the WGS-84 ellipsoid, as documented in `Earth`:
  /// at most 0.54 % on these pairs, with a median of 0.12 %.
  @Test func sphereErrorAgainstWGS84IsDocumented() throws {
    var relative: [Double] = []
    for pair in try GeodesyPair.load() where pair.wgs84Meters > 1000 {
      let d = point(pair.lat1, pair.lon1).distance(to: point(pair.lat2, pair.lon2))
      relative.append(abs(d - pair.wgs84Meters) / pair.wgs84Meters)
    }
    relative.sort()
    let median = relative[relative.count / 2]
    #expect(relative.last! < 0.0054)
    #expect(median < 0.002)
  }
}

@Suite struct BearingAndDestinationTests {
  @Test(arguments: [
    (1.0, 0.0, 0.0), (1.0, 1.0, 45.0), (0.0, 1.0, 90.0), (-1.0, 1.0, 135.0),
    (-1.0, 0.0, 180.0), (-1.0, -1.0, 225.0), (0.0, -1.0, 270.0), (1.0, -1.0, 315.0),
  ])
  func bearingsFallInTheRightQuadrant(_ lat: Double, _ lon: Double, _ expected: Double) {
    let b = point(0, 0).initialBearingDegrees(to: point(lat * 0.001, lon * 0.001))
    #expect(abs(b - expected) < 1e-3)
  }

  @Test func bearingIsInZeroTo360() {
    #expect(point(0, 0).initialBearingDegrees(to: point(0, 0)) == 0)
    let west = point(10, 10).initialBearingDegrees(to: point(10, 9))
    #expect(west >= 0 && west < 360)
  }

  @Test func destinationThenDistanceRoundTrips() throws {
    var rng = SplitMix64(seed: 42)
    for _ in 0..<1000 {
      let start = point(.random(in: -85...85, using: &rng), .random(in: -180...180, using: &rng))
      let bearing = Double.random(in: 0..<360, using: &rng)
      let meters = Double.random(in: 0...5_000_000, using: &rng)
      let end = try start.destination(bearingDegrees: bearing, distanceMeters: meters)
      #expect(abs(start.distance(to: end) - meters) < 1e-3)
      #expect(end.longitude >= -180 && end.longitude < 180)
      if meters > 1 {
        var diff = abs(start.initialBearingDegrees(to: end) - bearing)
        diff = min(diff, 360 - diff)
        #expect(diff < 1e-6)
      }
    }
  }

  @Test func destinationCrossesTheAntimeridian() throws {
    let end = try point(0, 179.9).destination(bearingDegrees: 90, distanceMeters: 2 * 11_119.49)
    #expect(abs(end.longitude - -179.9) < 1e-6)
  }

  @Test func destinationRejectsBadInput() {
    #expect(throws: ProximityError.invalidDistance(-1)) {
      try point(0, 0).destination(bearingDegrees: 0, distanceMeters: -1)
    }
    #expect(throws: ProximityError.self) {
      try point(0, 0).destination(bearingDegrees: .nan, distanceMeters: 1)
    }
  }
}

@Suite struct BoundingBoxTests {
  @Test func everyPointOfTheCircleIsInsideItsBox() throws {
    var rng = SplitMix64(seed: 3)
    for _ in 0..<300 {
      let center = point(.random(in: -90...90, using: &rng), .random(in: -180...180, using: &rng))
      let radius = Double.random(in: 0...3_000_000, using: &rng)
      let box = try center.boundingBox(radiusMeters: radius)
      for _ in 0..<20 {
        let p = try center.destination(
          bearingDegrees: .random(in: 0..<360, using: &rng),
          distanceMeters: radius * Double.random(in: 0...0.999_999, using: &rng))
        #expect(box.contains(p), "center \(center) radius \(radius) point \(p) box \(box)")
      }
    }
  }

  @Test func aCircleOverTheAntimeridianWraps() throws {
    let box = try point(0, 179.99).boundingBox(radiusMeters: 5000)
    #expect(box.crossesAntimeridian)
    #expect(box.contains(point(0, -179.99)))
    #expect(box.contains(point(0, 180)) && box.contains(point(0, -180)))
    #expect(!box.contains(point(0, 0)))
  }

  @Test func aCircleOverAPoleSpansEveryLongitude() throws {
    let box = try point(89.99, 0).boundingBox(radiusMeters: 5000)
    #expect(box.west == -180 && box.east == 180 && box.north == 90)
    #expect(box.contains(point(89.99, 180)))
    let south = try point(-90, 0).boundingBox(radiusMeters: 1)
    #expect(south.south == -90 && south.west == -180)
  }

  @Test func aRadiusOfHalfTheEarthCoversEverything() throws {
    let box = try point(10, 10).boundingBox(radiusMeters: Earth.halfCircumferenceMeters)
    #expect(box == (try BoundingBox(south: -90, west: -180, north: 90, east: 180)))
  }

  @Test func badBoxesAndRadiiAreRejected() {
    #expect(throws: ProximityError.self) { try point(0, 0).boundingBox(radiusMeters: -1) }
    #expect(throws: ProximityError.self) { try point(0, 0).boundingBox(radiusMeters: .nan) }
    #expect(throws: ProximityError.self) {
      try BoundingBox(south: 10, west: 0, north: 5, east: 1)
    }
  }
}
