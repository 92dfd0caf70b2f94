/// A small in-place JSON tokenizer for one object per line (gpsd reports).
///
/// It walks the top-level members of an object and hands each key with its value to a
/// closure: strings as the byte range of their contents (escapes left as written), numbers as
/// `Double`, and nested arrays and objects skipped (validated only for balance and strings).
package struct JSONLineScanner {
  /// A top-level member's value.
  package enum Value {
    /// A string: the byte range of its contents, escapes left as written.
    case string(Range<Int>)
    /// A number (`DecimalText`'s grammar, which holds JSON's).
    case number(Double)
    /// `true`, `false` or `null`.
    case literal
    /// An array or object, skipped.
    case nested
  }

  /// The line being scanned.
  package let bytes: UnsafeBufferPointer<UInt8>
  /// The current offset (the error column when a parse fails).
  package private(set) var position = 0
  /// Nesting deeper than this is rejected (no unbounded work on hostile input).
  package static let maximumDepth = 64

  /// A scanner at the start of `bytes`.
  package init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

  /// Whether every byte was read.
  package var atEnd: Bool { position >= bytes.count }

  /// Skips blanks, tabs and carriage returns.
  package mutating func skipSpace() {
    while position < bytes.count,
      bytes[position] == 0x20 || bytes[position] == 0x09 || bytes[position] == 0x0D
    {
      position += 1
    }
  }

  /// Parses `{ "key": value, … }` followed only by white space.
  /// - Returns: false when the text is not one well-formed object.
  package mutating func object(_ member: (String, Value) -> Void) -> Bool {
    skipSpace()
    guard take(UInt8(ascii: "{")) else { return false }
    skipSpace()
    if take(UInt8(ascii: "}")) { return finished() }
    while true {
      skipSpace()
      guard let keyRange = string() else { return false }
      skipSpace()
      guard take(UInt8(ascii: ":")) else { return false }
      skipSpace()
      guard let value = value() else { return false }
      member(String(decoding: UnsafeBufferPointer(rebasing: bytes[keyRange]), as: UTF8.self), value)
      skipSpace()
      if take(UInt8(ascii: ",")) { continue }
      guard take(UInt8(ascii: "}")) else { return false }
      return finished()
    }
  }

  private mutating func finished() -> Bool {
    skipSpace()
    return atEnd
  }

  private mutating func take(_ b: UInt8) -> Bool {
    guard position < bytes.count, bytes[position] == b else { return false }
    position += 1
    return true
  }

  /// A string's contents range (after the opening quote up to the closing one).
  private mutating func string() -> Range<Int>? {
    guard take(UInt8(ascii: "\"")) else { return nil }
    let start = position
    while position < bytes.count {
      let b = bytes[position]
      if b == UInt8(ascii: "\\") {
        position += 2
        continue
      }
      if b == UInt8(ascii: "\"") {
        let range = start..<position
        position += 1
        return range
      }
      if b < 0x20 { return nil }
      position += 1
    }
    return nil
  }

  private mutating func value() -> Value? {
    guard position < bytes.count else { return nil }
    switch bytes[position] {
    case UInt8(ascii: "\""):
      return string().map { .string($0) }
    case UInt8(ascii: "{"), UInt8(ascii: "["):
      return skipNested() ? .nested : nil
    case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
      let start = position
      while position < bytes.count, bytes[position] &- 0x61 < 26 { position += 1 }
      let word = String(
        decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
      return word == "true" || word == "false" || word == "null" ? .literal : nil
    default:
      let start = position
      while position < bytes.count {
        let b = bytes[position]
        guard
          (b &- 0x30) < 10 || b == UInt8(ascii: "-") || b == UInt8(ascii: "+")
            || b == UInt8(ascii: ".") || b == UInt8(ascii: "e") || b == UInt8(ascii: "E")
        else { break }
        position += 1
      }
      guard position > start else { return nil }
      return DecimalText.parseDouble(bytes, start..<position).map { .number($0) }
    }
  }

  /// Skips a nested array or object, strings included.
  private mutating func skipNested() -> Bool {
    var depth = 0
    while position < bytes.count {
      let b = bytes[position]
      switch b {
      case UInt8(ascii: "\""):
        guard string() != nil else { return false }
        continue
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        depth += 1
        guard depth <= JSONLineScanner.maximumDepth else { return false }
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        depth -= 1
        if depth == 0 {
          position += 1
          return true
        }
      default: break
      }
      position += 1
    }
    return false
  }
}
