/// `application/x-www-form-urlencoded` (WHATWG URL Standard, "urlencoded parsing"): the
/// OsmAnd form body, and a query string where a test or the fuzzer has one as text.
enum FormURLEncoded {
  /// The name–value pairs of `bytes` in order: split on `&`, each at its first `=`, `+` read
  /// as a space and `%XX` decoded; a `%` not followed by two hex digits stays as it is, and
  /// bytes that are not UTF-8 become U+FFFD, as the standard says. Empty pieces are skipped.
  /// - Complexity: O(n).
  static func pairs(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)] {
    var result: [(name: String, value: String)] = []
    for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
      let equals = piece.firstIndex(of: UInt8(ascii: "="))
      let name = decoded(piece[..<(equals ?? piece.endIndex)])
      let value = equals.map { decoded(piece[piece.index(after: $0)...]) } ?? ""
      result.append((name, value))
    }
    return result
  }

  private static func decoded(_ bytes: some Collection<UInt8>) -> String {
    let input = Array(bytes)
    var out: [UInt8] = []
    out.reserveCapacity(input.count)
    var i = 0
    while i < input.count {
      let byte = input[i]
      if byte == UInt8(ascii: "+") {
        out.append(0x20)
      } else if byte == UInt8(ascii: "%"), i + 2 < input.count,
        let high = hexValue(input[i + 1]), let low = hexValue(input[i + 2])
      {
        out.append(high << 4 | low)
        i += 2
      } else {
        out.append(byte)
      }
      i += 1
    }
    return String(decoding: out, as: UTF8.self)
  }

  private static func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
  }
}
