/// The mission file formats `importMissions` reads (DESIGN.md "Mission files").
package enum MissionFileFormat: String, Sendable, Hashable, CaseIterable {
  /// CSV with a header line naming the fields (RFC 4180 quoting).
  case csv
  /// A JSON array of objects with the field names as keys.
  case json
  /// A GeoJSON FeatureCollection (or one Feature) of Points: `coordinates` are
  /// `[lon, lat]`, the other fields are in `properties`.
  case geojson

  /// The format for a file name's extension (`.csv`, `.json`, `.geojson`), or nil.
  package init?(fileExtension: String) {
    switch fileExtension.lowercased() {
    case "csv": self = .csv
    case "json": self = .json
    case "geojson": self = .geojson
    default: return nil
    }
  }

  /// The format a file's content shows: GeoJSON when the first byte that is not white space
  /// (after a UTF-8 byte order mark) is `{`, JSON when it is `[`, CSV otherwise. For
  /// standard input and files without a known extension.
  package init(sniffing bytes: [UInt8]) {
    let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
    let first = body.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
    switch first {
    case UInt8(ascii: "{"): self = .geojson
    case UInt8(ascii: "["): self = .json
    default: self = .csv
    }
  }

  /// The format of the file `name` holding `bytes`, from its extension (a `.json` file
  /// holding an object is GeoJSON); nil for an unknown extension.
  package init?(fileName name: String, bytes: [UInt8]) {
    guard let dot = name.lastIndex(of: "."),
      let known = MissionFileFormat(fileExtension: String(name[name.index(after: dot)...]))
    else { return nil }
    self = known == .json ? MissionFileReader.sniff(bytes) : known
  }
}
