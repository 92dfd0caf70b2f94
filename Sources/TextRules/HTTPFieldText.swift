/// The rules for reading HTTP field names and values that both the service's requests and
/// the ingest decoders' requests follow: one owner, so the two cannot read a header
/// differently. Byte by byte over UTF-8, without Foundation: they run for every request.
package enum HTTPFieldText {
  /// Whether `a` and `b` are the same field name: equal but for the case of ASCII letters
  /// (RFC 9110 §5.1). Other characters must match exactly.
  package static func namesEqual(_ a: String, _ b: String) -> Bool {
    let x = a.utf8
    let y = b.utf8
    guard x.count == y.count else { return false }
    return zip(x, y).allSatisfy { lowered($0) == lowered($1) }
  }

  /// The media type of a `Content-Type` value: before any parameter (`;`), without the
  /// spaces and tabs around it, ASCII letters lower-cased (`Text/CSV; charset=utf-8` is
  /// `text/csv`).
  package static func mediaType(_ value: String) -> String {
    let bytes = value.utf8.prefix { $0 != UInt8(ascii: ";") }
    let isBlank = { (byte: UInt8) in byte == 0x20 || byte == 0x09 }
    guard let first = bytes.firstIndex(where: { !isBlank($0) }),
      let last = bytes.lastIndex(where: { !isBlank($0) })
    else { return "" }
    return String(decoding: bytes[first...last].map(lowered), as: UTF8.self)
  }

  /// `byte` with an ASCII capital letter made small.
  private static func lowered(_ byte: UInt8) -> UInt8 {
    (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
  }
}
