import Foundation

/// One row of `Fixtures/geodesy-pairs.csv`, written by `Tools/gen-geodesy-fixture` with
/// GeographicLib: the distance and azimuth on our sphere, and the WGS-84 geodesic distance.
struct GeodesyPair {
  var lat1, lon1, lat2, lon2: Double
  var sphereMeters: Double
  var sphereAzimuthDegrees: Double
  var wgs84Meters: Double

  static func load() throws -> [GeodesyPair] {
    let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/geodesy-pairs.csv")
    let text = try String(contentsOf: url, encoding: .utf8)
    return text.split(separator: "\n").dropFirst().map { line in
      let v = line.split(separator: ",").map { Double($0)! }
      return GeodesyPair(
        lat1: v[0], lon1: v[1], lat2: v[2], lon2: v[3], sphereMeters: v[4],
        sphereAzimuthDegrees: v[5], wgs84Meters: v[6])
    }
  }
}
