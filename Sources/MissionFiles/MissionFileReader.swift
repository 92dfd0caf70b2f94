import MissionTracking
import TextRules

/// Turns a mission file's bytes into validated records, or the first error with its line.
package enum MissionFileReader {
  /// Reads and validates every record; ids must be unique within the file.
  /// - Parameters:
  ///   - isInterrupted: Asked every `rowsPerInterruptionCheck` rows or elements (and every
  ///     few thousand JSON values) while the file is split, parsed and validated, from
  ///     several threads: true stops the read.
  /// - Throws: `MissionFileError.invalidMissionFile`; `.interrupted` once `isInterrupted`
  ///   said stop.
  package static func records(
    _ bytes: [UInt8], format: MissionFileFormat, file: String,
    isInterrupted: @escaping @Sendable () -> Bool = { false }
  ) throws(MissionFileError) -> [MissionRecord] {
    let records: [MissionRecord]
    switch format {
    case .csv: records = try csv(bytes, file: file, isInterrupted: isInterrupted)
    case .json, .geojson:
      let root: JSONNode
      do {
        root = try JSONParser.parse(bytes, isInterrupted: isInterrupted)
      } catch {
        if error.isInterrupted { throw .interrupted(file: file) }
        throw .invalidMissionFile(
          file: file, line: error.line, field: nil, value: nil, reason: error.reason)
      }
      records =
        format == .json
        ? try jsonArray(root, file: file, source: bytes, isInterrupted: isInterrupted)
        : try geoJSON(root, file: file, source: bytes, isInterrupted: isInterrupted)
    }
    var firstLine: [String: Int] = [:]
    firstLine.reserveCapacity(records.count)
    for index in records.indices {
      if let repeated = repeatedID(
        records[index].mission.id, line: records[index].line, file: file, seen: &firstLine)
      {
        throw repeated
      }
    }
    return records
  }

  /// The error for `id` on `line` when `seen` (ids by their first line) already holds it;
  /// else nil, and `id` is recorded. The one rule for an id twice in a file, for the
  /// imports that read a file in chunks too.
  package static func repeatedID(
    _ id: String, line: Int, file: String, seen: inout [String: Int]
  ) -> MissionFileError? {
    guard let first = seen.updateValue(line, forKey: id) else { return nil }
    return .invalidMissionFile(
      file: file, line: line, field: "id", value: id,
      reason: "duplicate id (first on line \(first))")
  }

  /// The format of a `.json` file: GeoJSON when the top level is an object.
  package static func sniff(_ bytes: [UInt8]) -> MissionFileFormat {
    let first = bytes.first { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }
    return first == UInt8(ascii: "{") ? .geojson : .json
  }

  /// A CSV split into records and checked up to its header, with its data rows in chunks
  /// that validate independently (`csvChunk`), in file order.
  package struct CSVPlan: Sendable {
    let rows: [CSVReader.Record]
    let names: [String]
    let known: [Bool]
    let file: String
    /// Number of chunks (1 for a small file).
    package let chunks: Int
    /// Number of data rows.
    package var recordCount: Int { rows.count - 1 }
  }

  /// Reads a CSV's records and header.
  /// - Parameters:
  ///   - isInterrupted: Asked every `rowsPerInterruptionCheck` rows: true stops the split.
  /// - Throws: `MissionFileError.invalidMissionFile` for a malformed file or header;
  ///   `.interrupted` once `isInterrupted` said stop.
  package static func csvPlan(
    _ bytes: [UInt8], file: String, isInterrupted: () -> Bool = { false }
  ) throws(MissionFileError) -> CSVPlan {
    let rows: [CSVReader.Record]
    do {
      rows = try CSVReader.records(bytes, isInterrupted: isInterrupted)
    } catch {
      if error.isInterrupted { throw .interrupted(file: file) }
      throw .invalidMissionFile(
        file: file, line: error.line, field: nil, value: nil, reason: error.reason)
    }
    guard let header = rows.first else {
      throw .invalidMissionFile(
        file: file, line: 1, field: nil, value: nil, reason: "empty file: a header is required")
    }
    let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
    var column: [String: Int] = [:]
    for (index, name) in names.enumerated() {
      if let first = column[name] {
        throw .invalidMissionFile(
          file: file, line: header.line, field: name, value: nil,
          reason: "duplicate column in the header (columns \(first + 1) and \(index + 1))")
      }
      column[name] = index
    }
    for required in ["id", "lat", "lon"] where !names.contains(required) {
      throw .invalidMissionFile(
        file: file, line: header.line, field: required, value: nil,
        reason: "the header must name id, lat and lon")
    }
    let body = rows.count - 1
    return CSVPlan(
      rows: rows, names: names, known: names.map { MissionRecord.knownFields.contains($0) },
      file: file, chunks: body < 2 * csvChunkRows ? 1 : min(64, body / csvChunkRows))
  }

  /// The validated records of chunk `chunk` of `plan`.
  /// - Parameters:
  ///   - isInterrupted: Asked every `rowsPerInterruptionCheck` rows: true stops the chunk.
  /// - Throws: `MissionFileError.invalidMissionFile` for the chunk's first bad record;
  ///   `.interrupted` once `isInterrupted` said stop.
  package static func csvChunk(
    _ plan: CSVPlan, _ chunk: Int, isInterrupted: () -> Bool = { false }
  ) throws(MissionFileError) -> [MissionRecord] {
    let body = plan.recordCount
    return try csvRecords(
      plan.rows, from: 1 + body * chunk / plan.chunks, to: 1 + body * (chunk + 1) / plan.chunks,
      names: plan.names, known: plan.known, file: plan.file, isInterrupted: isInterrupted)
  }

  private static func csv(
    _ bytes: [UInt8], file: String, isInterrupted: @Sendable () -> Bool
  ) throws(MissionFileError) -> [MissionRecord] {
    let plan = try csvPlan(bytes, file: file, isInterrupted: isInterrupted)
    // Records are validated independently, so a large file is validated in chunks on every
    // core; the first error in file order is the one reported, as in one pass.
    let parts = ParallelChunks.map(count: plan.chunks) { chunk in
      Result { () throws(MissionFileError) -> [MissionRecord] in
        try csvChunk(plan, chunk, isInterrupted: isInterrupted)
      }
    }
    var records: [MissionRecord] = []
    records.reserveCapacity(plan.recordCount)
    for part in parts { records.append(contentsOf: try part.get()) }
    return records
  }

  /// Rows per chunk of parallel CSV validation, at least.
  static let csvChunkRows = 16_384

  /// Rows (or JSON elements) read or validated between two calls of an interruption check:
  /// a call costs nothing next to them, and a stop waits for a few milliseconds of work.
  static let rowsPerInterruptionCheck = 1024

  /// Throws `.interrupted` at every `rowsPerInterruptionCheck`-th `row` that `isInterrupted`
  /// says stop at.
  private static func checkInterruption(
    row: Int, _ isInterrupted: () -> Bool, file: String
  ) throws(MissionFileError) {
    if row % rowsPerInterruptionCheck == 0, isInterrupted() { throw .interrupted(file: file) }
  }

  /// Validates `rows[start..<end]` of a CSV whose header gave `names`.
  private static func csvRecords(
    _ rows: [CSVReader.Record], from start: Int, to end: Int, names: [String], known: [Bool],
    file: String, isInterrupted: () -> Bool
  ) throws(MissionFileError) -> [MissionRecord] {
    var records: [MissionRecord] = []
    records.reserveCapacity(end - start)
    for index in start..<end {
      try checkInterruption(row: index - start, isInterrupted, file: file)
      let row = rows[index]
      guard row.fields.count == names.count else {
        throw .invalidMissionFile(
          file: file, line: row.line, field: nil, value: nil,
          reason: "\(row.fields.count) fields, the header has \(names.count)")
      }
      var fields: [MissionRecord.Field] = []
      fields.reserveCapacity(names.count)
      for ((name, text), isKnown) in zip(zip(names, row.fields), known) {
        // Only an unknown field is kept verbatim (as JSON text); a known one never is.
        var json = ""
        if !isKnown { JSONObjectWriter.appendQuoted(text, to: &json) }
        fields.append(.init(name: name, value: .text(text), line: row.line, json: json))
      }
      records.append(
        try MissionRecord.validate(fields, line: row.line, geometry: nil, file: file))
    }
    return records
  }

  private static func fields(of node: JSONNode, source: [UInt8]) -> [MissionRecord.Field] {
    guard case .object(let members) = node.value else { return [] }
    return members.map { member in
      field(named: member.key, member.node, source: source)
    }
  }

  private static func field(named name: String, _ node: JSONNode, source: [UInt8])
    -> MissionRecord.Field
  {
    let value: MissionRecord.Value =
      switch node.value {
      case .string(let s): .text(s)
      case .number(let n): .number(n)
      case .bool(let b): .bool(b)
      case .null: .null
      case .array, .object: .composite
      }
    return .init(
      name: name, value: value, line: node.line,
      json: String(decoding: source[node.range], as: UTF8.self))
  }

  private static func jsonArray(
    _ root: JSONNode, file: String, source: [UInt8], isInterrupted: () -> Bool
  ) throws(MissionFileError) -> [MissionRecord] {
    guard case .array(let elements) = root.value else {
      throw .invalidMissionFile(
        file: file, line: root.line, field: nil, value: nil,
        reason: "expected a JSON array of mission objects")
    }
    return try elements.enumerated().map { (index, element) throws(MissionFileError) in
      try checkInterruption(row: index, isInterrupted, file: file)
      guard case .object = element.value else {
        throw .invalidMissionFile(
          file: file, line: element.line, field: nil, value: nil,
          reason: "element \(index) is not an object")
      }
      return try MissionRecord.validate(
        fields(of: element, source: source), line: element.line, geometry: nil, file: file)
    }
  }

  private static func geoJSON(
    _ root: JSONNode, file: String, source: [UInt8], isInterrupted: () -> Bool
  ) throws(MissionFileError) -> [MissionRecord] {
    func fail(_ node: JSONNode, _ reason: String) -> MissionFileError {
      .invalidMissionFile(file: file, line: node.line, field: nil, value: nil, reason: reason)
    }
    guard case .string(let type)? = root["type"]?.value else {
      throw fail(root, "expected a GeoJSON FeatureCollection or Feature")
    }
    let features: [JSONNode]
    switch type {
    case "FeatureCollection":
      guard case .array(let list)? = root["features"]?.value else {
        throw fail(root, "a FeatureCollection needs a 'features' array")
      }
      features = list
    case "Feature": features = [root]
    default: throw fail(root, "expected a GeoJSON FeatureCollection or Feature, got '\(type)'")
    }
    var records: [MissionRecord] = []
    for (index, feature) in features.enumerated() {
      try checkInterruption(row: index, isInterrupted, file: file)
      guard case .string("Feature")? = feature["type"]?.value else {
        throw fail(feature, "feature \(index) is not a GeoJSON Feature")
      }
      guard let geometry = feature["geometry"], case .string("Point")? = geometry["type"]?.value
      else { throw fail(feature, "feature \(index): the geometry must be a Point") }
      guard let coordinates = geometry["coordinates"],
        case .array(let position) = coordinates.value, position.count >= 2,
        case .number(let lonText) = position[0].value,
        case .number(let latText) = position[1].value,
        let lon = Double(decimalText: lonText), let lat = Double(decimalText: latText)
      else { throw fail(geometry, "feature \(index): coordinates must be [lon, lat]") }
      guard (-90.0...90.0).contains(lat), (-180.0...180.0).contains(lon) else {
        throw .invalidMissionFile(
          file: file, line: coordinates.line, field: "coordinates",
          value: "[\(lonText), \(latText)]",
          reason: "longitude must be in [-180, 180] and latitude in [-90, 90] ([lon, lat] order)")
      }
      var properties: [MissionRecord.Field] = []
      if let node = feature["properties"] {
        switch node.value {
        case .object: properties = fields(of: node, source: source)
        case .null: break
        default: throw fail(node, "feature \(index): properties must be an object")
        }
      }
      let featureID = feature["id"].map { field(named: "id", $0, source: source) }
      records.append(
        try MissionRecord.validate(
          properties, line: feature.line,
          geometry: Coordinate(uncheckedLatitude: lat, longitude: lon), file: file,
          fallbackID: featureID))
    }
    return records
  }
}
