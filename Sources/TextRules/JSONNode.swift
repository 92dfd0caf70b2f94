/// A value parsed by `JSONParser`, with the 1-based line where it starts and its byte range in the
/// source (so unknown fields can be kept verbatim and errors can name the line).
package struct JSONNode {
  /// The value.
  package enum Value {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// The number's literal text, so `12` stays `"12"` as an id.
    case number(String)
    /// A string, escapes replaced.
    case string(String)
    /// An array's elements in order.
    case array([JSONNode])
    /// Members in source order.
    case object([(key: String, node: JSONNode)])
  }

  package let value: Value
  /// 1-based line of the value's first byte.
  package let line: Int
  /// Byte offsets of the value in the source.
  package let range: Range<Int>

  /// The member `key` of an object (the last one if repeated).
  package subscript(key: String) -> JSONNode? {
    guard case .object(let members) = value else { return nil }
    return members.last { $0.key == key }?.node
  }
}
