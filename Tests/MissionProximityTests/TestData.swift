import Foundation
import MissionProximity

/// Seeded random positions in the distributions the property tests use.
enum TestData {
  /// A distribution of positions.
  enum Distribution: String, CaseIterable, Sendable {
    case uniformWorld, clusteredCity, polarCaps, antimeridianBand
  }

  static func uniform(_ range: ClosedRange<Double>, _ rng: inout SplitMix64) -> Double {
    Double.random(in: range, using: &rng)
  }

  /// One position from `distribution`; about 2 % land exactly on a special value (a pole,
  /// ±180, or a repeated spot) to exercise ties and edges.
  static func coordinate(_ distribution: Distribution, _ rng: inout SplitMix64) -> Coordinate {
    let special = Int.random(in: 0..<100, using: &rng) < 2
    var lat: Double
    var lon: Double
    switch distribution {
    case .uniformWorld:
      lat = asin(uniform(-1...1, &rng)) * 180 / .pi
      lon = uniform(-180...180, &rng)
      if special { lat = [90, -90, 0][Int.random(in: 0..<3, using: &rng)] }
    case .clusteredCity:
      // Stockholm, σ ≈ 3 km, Box–Muller.
      let u1 = max(uniform(0...1, &rng), 1e-12)
      let u2 = uniform(0...1, &rng)
      let radius = (-2 * log(u1)).squareRoot() * 3000
      lat = 59.3293 + radius * cos(2 * .pi * u2) / 111_195
      lon = 18.0686 + radius * sin(2 * .pi * u2) / (111_195 * cos(59.3293 * .pi / 180))
      if special { (lat, lon) = (59.3293, 18.0686) }
    case .polarCaps:
      lat = uniform(84...90, &rng) * (Bool.random(using: &rng) ? 1 : -1)
      lon = uniform(-180...180, &rng)
      if special { lat = Bool.random(using: &rng) ? 90 : -90 }
    case .antimeridianBand:
      lat = uniform(-60...60, &rng)
      let offset = uniform(0...4, &rng)
      lon = Bool.random(using: &rng) ? 180 - offset : -180 + offset
      if special { lon = Bool.random(using: &rng) ? 180 : -180 }
    }
    return try! Coordinate(latitude: min(90, max(-90, lat)), longitude: lon)
  }

  /// `count` missions with ids "m0"…, each with a tag in 0..<4.
  static func missions(_ distribution: Distribution, count: Int, seed: UInt64)
    -> [(id: String, coordinate: Coordinate, payload: Int)]
  {
    var rng = SplitMix64(seed: seed)
    return (0..<count).map {
      ("m\($0)", coordinate(distribution, &rng), Int.random(in: 0..<4, using: &rng))
    }
  }

  /// A radius for `distribution`: mostly cell-sized, sometimes 0, sometimes huge.
  static func radius(_ distribution: Distribution, _ rng: inout SplitMix64) -> Double {
    switch Int.random(in: 0..<20, using: &rng) {
    case 0: return 0
    case 1: return Earth.halfCircumferenceMeters * uniform(0.5...1.2, &rng)
    default:
      let scale = distribution == .clusteredCity ? 4.0 : 6.0
      return pow(10, uniform(0...scale, &rng))  // 1 m … 1000 km
    }
  }

  /// A random box, crossing ±180 about one time in four.
  static func box(_ distribution: Distribution, _ rng: inout SplitMix64) -> BoundingBox {
    let center = coordinate(distribution, &rng)
    let height = pow(10, uniform(-3...1.5, &rng))
    let width = pow(10, uniform(-3...2, &rng))
    let south = max(-90, center.latitude - height)
    let north = min(90, center.latitude + height)
    var west = center.longitude - width
    var east = center.longitude + width
    if east - west >= 360 { (west, east) = (-180, 180) }
    if west < -180 { west += 360 }
    if east > 180 { east -= 360 }
    return try! BoundingBox(south: south, west: west, north: north, east: east)
  }
}
