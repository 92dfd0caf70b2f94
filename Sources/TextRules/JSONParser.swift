/// A small RFC 8259 parser that keeps line numbers: mission files report bad records by line.
/// Also the service's reader of a `PUT` body, so that it reads JSON as an import does.
package struct JSONParser {
  /// Why parsing failed, and on which line.
  package struct Failure: Error {
    /// The 1-based line of the failure.
    package let line: Int
    /// What is wrong, in one line.
    package let reason: String
    /// Whether the text is JSON but an object repeats a name (refused as a bad value, not as
    /// bad syntax: RFC 8259 allows it, mission files do not).
    package var isDuplicateKey = false
    /// Whether the caller's interruption check stopped the parse (no fault of the text).
    package var isInterrupted = false
  }

  private let bytes: [UInt8]
  private var index = 0
  private var line = 1
  private var depth = 0
  private static let maxDepth = 512
  /// The caller's "stop now?", asked every `valuesPerInterruptionCheck` values.
  private var isInterrupted: (() -> Bool)?
  private var values = 0
  /// Values parsed between two interruption checks: a check costs nothing next to them, and
  /// a stop waits for well under a millisecond of parsing.
  private static let valuesPerInterruptionCheck = 4096
  /// Up to this many members an object's names are checked for repeats by a scan.
  private static let smallObject = 16

  /// Parses a whole document (a UTF-8 byte order mark is skipped).
  /// - Parameters:
  ///   - isInterrupted: Asked every few thousand values: true stops the parse (a stopping
  ///     server must not wait for a large document).
  /// - Throws: `Failure` with the line and the reason; one with `isInterrupted` set once
  ///   `isInterrupted` said stop.
  package static func parse(_ bytes: [UInt8], isInterrupted: (() -> Bool)? = nil)
    throws(Failure) -> JSONNode
  {
    var parser = JSONParser(bytes: bytes)
    parser.isInterrupted = isInterrupted
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
    let node = try parser.value()
    parser.skipSpace()
    guard parser.index == bytes.count else {
      throw parser.fail("unexpected text after the JSON value")
    }
    return node
  }

  private init(bytes: [UInt8]) { self.bytes = bytes }

  private func fail(_ reason: String) -> Failure { Failure(line: line, reason: reason) }

  private mutating func skipSpace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x0A:
        line += 1
        index += 1
      case 0x20, 0x09, 0x0D: index += 1
      default: return
      }
    }
  }

  private mutating func value() throws(Failure) -> JSONNode {
    values += 1
    if values % Self.valuesPerInterruptionCheck == 0, let isInterrupted, isInterrupted() {
      throw Failure(line: line, reason: "interrupted", isInterrupted: true)
    }
    skipSpace()
    guard index < bytes.count else { throw fail("unexpected end of JSON") }
    let start = index
    let startLine = line
    let value: JSONNode.Value
    switch bytes[index] {
    case UInt8(ascii: "{"): value = try object()
    case UInt8(ascii: "["): value = try array()
    case UInt8(ascii: "\""): value = .string(try string())
    case UInt8(ascii: "t"): value = try literal("true", .bool(true))
    case UInt8(ascii: "f"): value = try literal("false", .bool(false))
    case UInt8(ascii: "n"): value = try literal("null", .null)
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = try number()
    default:
      throw fail("unexpected character '\(Character(Unicode.Scalar(bytes[index])))'")
    }
    return JSONNode(value: value, line: startLine, range: start..<index)
  }

  private mutating func literal(_ word: String, _ value: JSONNode.Value) throws(Failure)
    -> JSONNode.Value
  {
    let count = word.utf8.count
    guard bytes.count - index >= count, bytes[index..<index + count].elementsEqual(word.utf8)
    else { throw fail("invalid literal") }
    index += count
    return value
  }

  private mutating func number() throws(Failure) -> JSONNode.Value {
    let start = index
    func digits() -> Int {
      let from = index
      while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
      return index - from
    }
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    let intStart = index
    guard digits() > 0 else { throw fail("invalid number") }
    if bytes[intStart] == UInt8(ascii: "0"), index - intStart > 1 {
      throw fail("invalid number: leading zero")
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      index += 1
      guard digits() > 0 else { throw fail("invalid number: no digits after '.'") }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")
      {
        index += 1
      }
      guard digits() > 0 else { throw fail("invalid number: no exponent digits") }
    }
    return .number(String(decoding: bytes[start..<index], as: UTF8.self))
  }

  private mutating func hex4() throws(Failure) -> UInt32 {
    guard bytes.count - index >= 4 else { throw fail("invalid \\u escape") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let b = bytes[index]
      let digit: UInt8
      switch b {
      case 48...57: digit = b - 48
      case 65...70: digit = b - 55
      case 97...102: digit = b - 87
      default: throw fail("invalid \\u escape")
      }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  private mutating func string() throws(Failure) -> String {
    index += 1  // opening quote
    // Most strings hold no escape: they are made from their bytes in one step, and when
    // every byte is ASCII (`seen` has no high bit) without validating them again.
    let start = index
    var seen: UInt8 = 0
    while index < bytes.count {
      let b = bytes[index]
      guard b != UInt8(ascii: "\""), b != UInt8(ascii: "\\"), b >= 0x20 else { break }
      seen |= b
      index += 1
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
      let end = index
      index += 1
      let text = bytes.withUnsafeBufferPointer { buffer -> String? in
        let run = UnsafeBufferPointer(rebasing: buffer[start..<end])
        return seen < 0x80
          ? String(decoding: run, as: UTF8.self) : String(validating: run, as: UTF8.self)
      }
      guard let text else { throw fail("string is not valid UTF-8") }
      return text
    }
    var out = Array(bytes[start..<index])
    while true {
      guard index < bytes.count else { throw fail("unterminated string") }
      let b = bytes[index]
      switch b {
      case UInt8(ascii: "\""):
        index += 1
        guard let text = String(validating: out, as: UTF8.self) else {
          throw fail("string is not valid UTF-8")
        }
        return text
      case UInt8(ascii: "\\"):
        index += 1
        guard index < bytes.count else { throw fail("unterminated string") }
        let e = bytes[index]
        index += 1
        switch e {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
          var scalar = try hex4()
          if (0xD800..<0xDC00).contains(scalar) {
            guard bytes.count - index >= 2, bytes[index] == UInt8(ascii: "\\"),
              bytes[index + 1] == UInt8(ascii: "u")
            else { throw fail("unpaired surrogate in \\u escape") }
            index += 2
            let low = try hex4()
            guard (0xDC00..<0xE000).contains(low) else {
              throw fail("unpaired surrogate in \\u escape")
            }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
          }
          guard let unicode = Unicode.Scalar(scalar) else {
            throw fail("invalid \\u escape")
          }
          out.append(contentsOf: Array(String(Character(unicode)).utf8))
        default: throw fail("invalid escape '\\\(Character(Unicode.Scalar(e)))'")
        }
      case 0..<0x20:
        throw fail("control character in string")
      default:
        out.append(b)
        index += 1
      }
    }
  }

  private mutating func enter() throws(Failure) {
    depth += 1
    guard depth <= Self.maxDepth else { throw fail("JSON nested too deeply") }
  }

  private mutating func array() throws(Failure) -> JSONNode.Value {
    try enter()
    defer { depth -= 1 }
    index += 1
    var elements: [JSONNode] = []
    skipSpace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      return .array(elements)
    }
    while true {
      elements.append(try value())
      skipSpace()
      guard index < bytes.count else { throw fail("unterminated array") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "]") {
        index += 1
        return .array(elements)
      } else {
        throw fail("expected ',' or ']' in array")
      }
    }
  }

  private mutating func object() throws(Failure) -> JSONNode.Value {
    try enter()
    defer { depth -= 1 }
    index += 1
    var members: [(key: String, node: JSONNode)] = []
    // Where each name was first seen: RFC 8259 leaves repeated names undefined (parsers keep
    // the first, the last or both), so a mission file with one is refused, not guessed at.
    // Looked up in `keys` while the object is small (most are: no hashing), in `seen` from
    // `Self.smallObject` members on (a huge object stays linear).
    var keys: [String] = []
    var keyLines: [Int] = []
    var seen: [String: Int] = [:]
    skipSpace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      return .object(members)
    }
    // Most objects have a few members: room for them at once, not grown from one.
    members.reserveCapacity(Self.smallObject / 2)
    keys.reserveCapacity(Self.smallObject / 2)
    keyLines.reserveCapacity(Self.smallObject / 2)
    while true {
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw fail("expected a member name in quotes")
      }
      let keyLine = line
      let key = try string()
      let first: Int?
      if keys.count < Self.smallObject {
        first = keys.firstIndex(of: key).map { keyLines[$0] }
      } else {
        if seen.isEmpty {
          for (known, knownLine) in zip(keys, keyLines) { seen[known] = knownLine }
        }
        first = seen[key]
        seen[key] = first ?? keyLine
      }
      if let first {
        throw Failure(
          line: keyLine,
          reason: "duplicate key '\(key)' in one object (first on line \(first))",
          isDuplicateKey: true)
      }
      keys.append(key)
      keyLines.append(keyLine)
      skipSpace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
        throw fail("expected ':' after member name")
      }
      index += 1
      members.append((key, try value()))
      skipSpace()
      guard index < bytes.count else { throw fail("unterminated object") }
      if bytes[index] == UInt8(ascii: ",") {
        index += 1
      } else if bytes[index] == UInt8(ascii: "}") {
        index += 1
        return .object(members)
      } else {
        throw fail("expected ',' or '}' in object")
      }
    }
  }
}
