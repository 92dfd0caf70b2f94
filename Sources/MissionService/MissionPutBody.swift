import MissionStore
import MissionTracking
import TextRules

/// The body of `PUT /v1/missions/{id}`: one JSON object, read by the import's own reader
/// (`JSONParser`) and stored by the import as a one-element array of its own bytes, so that a
/// PUT reads a mission as an import does: a repeated name is refused, a number keeps its text
/// (`12.50`), an id that is neither text nor a number is refused.
struct MissionPutBody {
  /// The body as sent.
  let bytes: [UInt8]
  /// The object, as `JSONParser` read it.
  let object: JSONNode

  /// The body read as one JSON object.
  /// - Throws: 400 for text that is not JSON or not an object; 422 for an object that repeats
  ///   a name (as an import refuses it).
  init(_ bytes: [UInt8]) throws(ServiceError) {
    do {
      object = try JSONParser.parse(bytes)
    } catch {
      let place = "body:\(error.line): \(MissionService.oneLine(error.reason, limit: 200))"
      if error.isDuplicateKey { throw .invalid(place + " (nothing stored)") }
      throw .badRequest("the body must be one JSON object: " + place)
    }
    guard case .object = object.value else {
      throw .badRequest("the body must be one JSON object")
    }
    self.bytes = bytes
  }

  /// The member `name` as the import reads a text field: a string, or a number's literal;
  /// nil when absent or of another kind (which the import refuses, or, for null, ignores).
  func text(_ name: String) -> String? {
    switch object[name]?.value {
    case .string(let text), .number(let text): text
    default: nil
    }
  }

  /// The import's input: `[OBJECT]`, with `members` (a writer's members, each name absent
  /// from the body) first in the object. The rest is the body's own bytes, so that lines and
  /// number literals are the client's. A byte order mark before the object is left out (the
  /// reader skips one only at the very start).
  func importDocument(adding members: JSONObjectWriter) -> [UInt8] {
    let open = object.range.lowerBound
    let skipped = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    let added = members.openBytes.dropFirst()
    var document: [UInt8] = [UInt8(ascii: "[")]
    document.reserveCapacity(bytes.count + added.count + 3)
    document.append(contentsOf: bytes[skipped...open])
    document.append(contentsOf: added)
    if !added.isEmpty, case .object(let existing) = object.value, !existing.isEmpty {
      document.append(UInt8(ascii: ","))
    }
    document.append(contentsOf: bytes[(open + 1)...])
    document.append(UInt8(ascii: "]"))
    return document
  }
}
