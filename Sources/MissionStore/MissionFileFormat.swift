/// The mission file formats `importMissions` reads (DESIGN.md "Mission files").
public enum MissionFileFormat: String, Sendable, Hashable, CaseIterable {
  /// CSV with a header line naming the fields (RFC 4180 quoting).
  case csv
  /// A JSON array of objects with the field names as keys.
  case json
  /// A GeoJSON FeatureCollection (or one Feature) of Points: `coordinates` are
  /// `[lon, lat]`, the other fields are in `properties`.
  case geojson

  /// The format for a file name's extension (`.csv`, `.json`, `.geojson`), or nil.
  public init?(fileExtension: String) {
    switch fileExtension.lowercased() {
    case "csv": self = .csv
    case "json": self = .json
    case "geojson": self = .geojson
    default: return nil
    }
  }
}
