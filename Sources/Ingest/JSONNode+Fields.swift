import Foundation
import TextRules

extension JSONNode {
  /// The request body `bytes` read as one JSON object.
  /// - Throws: `IngestError` 400 naming the line when it is not JSON or not an object.
  static func object(body bytes: [UInt8], _ protocolName: IngestProtocol) throws(IngestError)
    -> JSONNode
  {
    let root: JSONNode
    do {
      root = try JSONParser.parse(bytes)
    } catch {
      throw .malformed(protocolName, "the body is not JSON: line \(error.line): \(error.reason)")
    }
    guard case .object = root.value else {
      throw .malformed(protocolName, "the body is \(root.typeName), not a JSON object")
    }
    return root
  }

  /// The member `key`, a required ISO 8601 time with a zone (`IngestTime.iso8601`).
  /// - Throws: `PointProblem` when it is absent, not a string or not such a time.
  func time(_ key: String) throws(PointProblem) -> Date {
    guard let text = try string(key) else { throw PointProblem("\(key) is required") }
    guard let time = IngestTime.iso8601(text) else {
      throw PointProblem("\(key) '\(text)' is not ISO 8601 with a zone")
    }
    return time
  }

  /// The JSON type's name, for an error that says what was found instead.
  var typeName: String {
    switch value {
    case .null: "null"
    case .bool: "a boolean"
    case .number: "a number"
    case .string: "a string"
    case .array: "an array"
    case .object: "an object"
    }
  }

  /// The member `key` as a number: nil when absent or null.
  /// - Throws: `PointProblem` when it is another type or not a finite number.
  func number(_ key: String) throws(PointProblem) -> Double? {
    guard let node = self[key] else { return nil }
    switch node.value {
    case .null: return nil
    case .number(let text):
      // JSON's grammar is within the decimal grammar; only a value too large to be finite
      // (1e999) is refused here.
      guard let value = Double(decimalText: text) else {
        throw PointProblem("\(key) \(text) is not a finite number")
      }
      return value
    default: throw PointProblem("\(key) is \(node.typeName), not a number")
    }
  }

  /// The member `key` as a string: nil when absent or null.
  /// - Throws: `PointProblem` when it is another type.
  func string(_ key: String) throws(PointProblem) -> String? {
    guard let node = self[key] else { return nil }
    switch node.value {
    case .null: return nil
    case .string(let text): return text
    default: throw PointProblem("\(key) is \(node.typeName), not a string")
    }
  }

  /// The member `key` as an object: nil when absent or null.
  /// - Throws: `PointProblem` when it is another type.
  func object(_ key: String) throws(PointProblem) -> JSONNode? {
    guard let node = self[key] else { return nil }
    switch node.value {
    case .null: return nil
    case .object: return node
    default: throw PointProblem("\(key) is \(node.typeName), not an object")
    }
  }
}
