import Foundation
import MissionTracking
import TextRules

/// One validated record of a mission file: the mission, its unknown fields as a JSON object,
/// and the line it came from.
package struct MissionRecord {
  /// A field value as the file gave it.
  enum Value {
    /// Text (every CSV cell, JSON strings).
    case text(String)
    /// A JSON number, as its literal text.
    case number(String)
    case bool(Bool)
    case null
    /// A JSON array or object (kept verbatim among the unknown fields).
    case composite
  }

  /// One named field with the line of its value and its JSON text for keeping it verbatim.
  struct Field {
    let name: String
    let value: Value
    let line: Int
    let json: String
  }

  /// The known fields of one record by name: a short list searched in order, cheaper than
  /// a dictionary for the handful a record has (a dictionary per record was a tenth of a
  /// large import).
  private struct FieldTable {
    private var fields: [Field] = []

    subscript(name: String) -> Field? {
      get { fields.first { $0.name == name } }
      set {
        fields.removeAll { $0.name == name }
        if let newValue { fields.append(newValue) }
      }
    }
  }

  /// The validated mission (its id in NFC).
  package let mission: Mission
  /// The unknown fields as one JSON object, verbatim.
  package let properties: String
  /// The 1-based line where the record starts.
  package let line: Int

  /// The known field names (DESIGN.md "Mission files").
  static let knownFields: Set<String> = [
    "id", "lat", "lon", "title", "reward", "currency", "address", "radius_m", "deadline",
    "state",
  ]

  /// Validates `fields` into a record.
  ///
  /// - Parameters:
  ///   - fields: The record's fields in file order; empty text and null mean absent.
  ///   - line: The line where the record starts (used when a required field is missing).
  ///   - geometry: The GeoJSON point, which replaces `lat`/`lon` (those stay as unknown
  ///     fields if present).
  ///   - file: The file name for errors.
  /// - Throws: `MissionFileError.invalidMissionFile` naming the line, field and value.
  static func validate(
    _ fields: [Field], line: Int, geometry: Coordinate?, file: String, fallbackID: Field? = nil
  ) throws(MissionFileError) -> MissionRecord {
    var known = FieldTable()
    var extra: [Field] = []
    for field in fields {
      if case .null = field.value { continue }
      if case .text(let text) = field.value, text.isEmpty { continue }
      if knownFields.contains(field.name),
        !(geometry != nil && (field.name == "lat" || field.name == "lon"))
      {
        known[field.name] = field
      } else {
        extra.append(field)
      }
    }
    if known["id"] == nil, let fallbackID { known["id"] = fallbackID }

    func bad(_ field: Field, _ reason: String) -> MissionFileError {
      let shown: String? =
        switch field.value {
        case .text(let t): t
        case .number(let n): n
        case .bool(let b): b ? "true" : "false"
        case .null: "null"
        case .composite: field.json
        }
      return .invalidMissionFile(
        file: file, line: field.line, field: field.name, value: shown, reason: reason)
    }
    func text(_ name: String) throws(MissionFileError) -> String? {
      guard let field = known[name] else { return nil }
      switch field.value {
      case .text(let t): return t
      case .number(let n): return n
      default: throw bad(field, "expected text")
      }
    }
    func number(_ name: String) throws(MissionFileError) -> (Double, Field)? {
      guard let field = known[name] else { return nil }
      let literal: String
      switch field.value {
      case .number(let n): literal = n
      case .text(let t): literal = t.trimmingWhitespace
      default: throw bad(field, "expected a number")
      }
      guard let value = Double(decimalText: literal) else {
        throw bad(field, "expected a number")
      }
      return (value, field)
    }

    guard let id = try text("id").map(MissionID.normalized) else {
      throw .invalidMissionFile(
        file: file, line: line, field: "id", value: nil, reason: "the id is required")
    }
    if id.isBlank, let field = known["id"] {
      throw bad(field, "the id must not be blank")
    }
    // A NUL would end the id in a request path (and in C strings): such a mission could be
    // stored but never named again.
    if id.utf8.contains(0), let field = known["id"] {
      throw bad(field, "the id must not contain NUL (U+0000)")
    }
    // The rest of the one id rule that worker ids share (control characters, length).
    if let problem = Identifier.problem(with: id), let field = known["id"] {
      throw bad(field, "the id \(problem)")
    }
    let coordinate: Coordinate
    if let geometry {
      coordinate = geometry
    } else {
      guard let (lat, latField) = try number("lat") else {
        throw .invalidMissionFile(
          file: file, line: line, field: "lat", value: nil, reason: "lat is required")
      }
      guard let (lon, lonField) = try number("lon") else {
        throw .invalidMissionFile(
          file: file, line: line, field: "lon", value: nil, reason: "lon is required")
      }
      guard (-90.0...90.0).contains(lat) else { throw bad(latField, "must be in [-90, 90]") }
      guard (-180.0...180.0).contains(lon) else { throw bad(lonField, "must be in [-180, 180]") }
      coordinate = Coordinate(uncheckedLatitude: lat, longitude: lon)
    }
    var radius = Mission.defaultGeofenceRadiusMeters
    if let (value, field) = try number("radius_m") {
      guard value > 0 else { throw bad(field, "the radius must be > 0 metres") }
      // A larger circle would cover the whole sphere more than once: no such fence exists.
      guard value <= Earth.halfCircumferenceMeters else {
        throw bad(
          field,
          "the radius must be at most half the Earth's circumference, "
            + "\(Int(Earth.halfCircumferenceMeters)) metres")
      }
      radius = value
    }
    let reward = try text("reward")
    if let reward, let field = known["reward"] {
      let trimmed = reward.trimmingWhitespace
      guard let value = Double(decimalText: trimmed), value >= 0,
        trimmed.utf8.allSatisfy({ (48...57).contains($0) || $0 == UInt8(ascii: ".") })
      else { throw bad(field, "expected a decimal amount >= 0") }
    }
    var currency = try text("currency")
    if let code = currency, let field = known["currency"] {
      let upper = code.trimmingWhitespace.uppercased()
      guard upper.utf8.count == 3, upper.utf8.allSatisfy({ (65...90).contains($0) }) else {
        throw bad(field, "expected a 3-letter ISO 4217 code")
      }
      currency = upper
    }
    var deadline: Date?
    if let text = try text("deadline"), let field = known["deadline"] {
      guard let parsed = UTCTime.parse(text.trimmingWhitespace),
        parsed.hadZone
      else { throw bad(field, "expected an RFC 3339 time with a zone, e.g. 2026-05-01T12:00:00Z") }
      deadline = parsed.date
    }
    var state = MissionState.open
    if let text = try text("state"), let field = known["state"] {
      guard let parsed = MissionState(rawValue: text.trimmingWhitespace) else {
        throw bad(
          field,
          "expected one of " + MissionState.allCases.map(\.rawValue).joined(separator: ", "))
      }
      state = parsed
    }
    let mission = Mission(
      id: id, title: try text("title") ?? "", coordinate: coordinate,
      geofenceRadiusMeters: radius, reward: reward?.trimmingWhitespace,
      currency: currency, address: try text("address"), deadline: deadline, state: state)
    var properties = "{"
    for (i, field) in extra.enumerated() {
      if i > 0 { properties += "," }
      JSONObjectWriter.appendQuoted(field.name, to: &properties)
      properties += ":"
      properties += field.json
    }
    properties += "}"
    return MissionRecord(mission: mission, properties: properties, line: line)
  }
}
