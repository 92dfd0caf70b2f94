/// A start tag as the tokenizer found it: offsets into the buffer being scanned, valid only
/// during the `startElement` call that receives it.
struct XMLStartTag {
  /// The buffer the tag is in.
  let buffer: UnsafeBufferPointer<UInt8>
  /// The offset of `<`.
  let start: Int
  /// The offset of `>`.
  let end: Int
  /// The offset just past the qualified name.
  let nameEnd: Int
  /// The offset of the local name (after the last `:` of the qualified name).
  let localNameStart: Int
  /// Whether the tag ends in `/>`.
  let isSelfClosing: Bool

  /// The local name: `trkpt` for `<ns2:trkpt>`.
  var localName: UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: buffer[localNameStart..<nameEnd])
  }

  /// The local name as text, for messages.
  var localNameText: String { String(decoding: localName, as: UTF8.self) }

  /// The qualified name as written, for messages.
  var qualifiedName: String { String(decoding: buffer[(start + 1)..<nameEnd], as: UTF8.self) }

  /// The tag's attributes, read one by one (only when a handler asks for them).
  var attributes: Attributes {
    Attributes(tag: self, index: nameEnd, end: isSelfClosing ? end - 1 : end)
  }

  /// Reads `name="value"` pairs; raw values, references not replaced.
  struct Attributes {
    let tag: XMLStartTag
    var index: Int
    let end: Int

    /// The next attribute's name and value offsets, or nil after the last.
    /// - Throws: `TraceError` for a malformed attribute, located at it.
    mutating func next(_ locator: XMLLocator) throws(TraceError) -> (
      name: Range<Int>, value: Range<Int>
    )? {
      let b = tag.buffer
      var i = index
      while i < end, XMLTokenizer.isSpace(b[i]) { i += 1 }
      if i >= end { return nil }
      let nameStart = i
      while i < end, b[i] != 0x3D, !XMLTokenizer.isSpace(b[i]) { i += 1 }
      let nameEnd = i
      while i < end, XMLTokenizer.isSpace(b[i]) { i += 1 }
      guard i < end, b[i] == 0x3D, nameEnd > nameStart else {
        throw locator.error(at: nameStart, "malformed attribute in <\(tag.localNameText)>")
      }
      i += 1
      while i < end, XMLTokenizer.isSpace(b[i]) { i += 1 }
      guard i < end, b[i] == 0x22 || b[i] == 0x27 else {
        throw locator.error(at: i, "attribute value without quotes in <\(tag.localNameText)>")
      }
      let quote = b[i]
      i += 1
      let valueStart = i
      while i < end, b[i] != quote { i += 1 }
      guard i < end else { throw locator.error(at: valueStart, "unterminated attribute value") }
      index = i + 1
      return (nameStart..<nameEnd, valueStart..<i)
    }
  }
}
