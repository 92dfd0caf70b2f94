import MissionTracking
import TextRules

/// The small JSON object a command route takes (`PUT /v1/workers/{id}`, `POST /v1/watches`,
/// the optional `{"worker_id"}` of an accept), read by the import's own reader
/// (`JSONParser`), with the service's statuses: 400 for a body that is not one JSON object,
/// 422 for a member of the wrong type or out of range, and for a member the route does not
/// know, so that a misspelt `"worker"` is refused rather than silently ignored (an accept
/// would then go to `local`).
struct CommandBody {
  /// The members, as `JSONParser` read them; empty for an empty body where one is optional.
  private let members: [(key: String, node: JSONNode)]

  /// `bytes` read as one JSON object with members among `known`.
  /// - Parameter optional: whether an empty body (only whitespace) stands for `{}`.
  /// - Throws: 400 for text that is not one JSON object; 422 for a repeated or unknown member.
  init(_ bytes: [UInt8], known: Set<String>, optional: Bool = false) throws(ServiceError) {
    if optional, bytes.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
      members = []
      return
    }
    let object: JSONNode
    do {
      object = try JSONParser.parse(bytes)
    } catch {
      let place = "body:\(error.line): \(MissionService.oneLine(error.reason, limit: 200))"
      if error.isDuplicateKey { throw .invalid(place) }
      throw .badRequest("the body must be one JSON object: " + place)
    }
    guard case .object(let members) = object.value else {
      throw .badRequest("the body must be one JSON object")
    }
    if let unknown = members.first(where: { !known.contains($0.key) }) {
      throw .invalid(
        "unknown member '\(Self.shown(unknown.key))'; known: \(known.sorted().joined(separator: ", "))"
      )
    }
    self.members = members
  }

  private func node(_ name: String) -> JSONNode? {
    members.last { $0.key == name }?.node
  }

  /// The string member `name`; nil when absent or null.
  /// - Throws: 422 when it is another kind of value.
  func string(_ name: String) throws(ServiceError) -> String? {
    switch node(name)?.value {
    case nil, .null?: return nil
    case .string(let text)?: return text
    default: throw .invalid("\(name) must be a string")
    }
  }

  /// The number member `name`, finite and in `range`; nil when absent or null.
  /// - Throws: 422 when it is not a number, not finite or out of range.
  func number(_ name: String, in range: ClosedRange<Double>) throws(ServiceError) -> Double? {
    switch node(name)?.value {
    case nil, .null?: return nil
    case .number(let text)?:
      guard let value = Double(decimalText: text), value.isFinite, range.contains(value) else {
        throw .invalid(
          "\(name) must be a number in \(range.lowerBound)...\(range.upperBound), got \(Self.shown(text))"
        )
      }
      return value
    default: throw .invalid("\(name) must be a number")
    }
  }

  /// The array member `name`; nil when absent or null.
  /// - Throws: 422 when it is another kind of value.
  func array(_ name: String) throws(ServiceError) -> [JSONNode]? {
    switch node(name)?.value {
    case nil, .null?: return nil
    case .array(let elements)?: return elements
    default: throw .invalid("\(name) must be an array")
    }
  }

  /// The member `name` of `element` (an element of an `array` member), as a body of its own.
  /// - Throws: 422 when the element is not an object, or has a member not in `known`.
  static func object(_ element: JSONNode, of name: String, known: Set<String>)
    throws(ServiceError) -> CommandBody
  {
    guard case .object(let members) = element.value else {
      throw .invalid("each of \(name) must be an object")
    }
    if let unknown = members.first(where: { !known.contains($0.key) }) {
      throw .invalid(
        "unknown member '\(shown(unknown.key))' in \(name); known: \(known.sorted().joined(separator: ", "))"
      )
    }
    return CommandBody(members: members)
  }

  private init(members: [(key: String, node: JSONNode)]) { self.members = members }

  /// An id member (`worker_id`) or path segment checked by the one id rule (`Identifier`)
  /// and normalized to NFC.
  /// - Throws: 422 naming what is wrong with it.
  static func identifier(_ text: String, of what: String) throws(ServiceError) -> String {
    if let problem = Identifier.problem(with: text) {
      throw .invalid("\(what) '\(shown(text))' \(problem)")
    }
    return Identifier.normalized(text)
  }

  /// A client's text in an error message: on one line, at most 64 characters.
  static func shown(_ text: String) -> String { MissionService.oneLine(text, limit: 64) }
}
