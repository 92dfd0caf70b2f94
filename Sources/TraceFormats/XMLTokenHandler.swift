/// What an `XMLTokenizer` tells as it reads: the document's elements and character data, in
/// order. The tokenizer guarantees balance (every start is followed by its end, a self-closing
/// tag gives both at once) and well-formedness of what it delivers; the handler gives the
/// elements meaning.
protocol XMLTokenHandler {
  /// An element starts.
  /// - Parameters:
  ///   - tag: The start tag, with its name and attributes.
  ///   - parent: The state the handler returned for the enclosing element; nil for the root.
  ///   - locator: Locates errors in the buffer the tag is in.
  /// - Returns: The element's state, handed back with its end and to its children.
  /// - Throws: `TraceError` to stop the document (for example a root that is not expected).
  mutating func startElement(_ tag: XMLStartTag, parent: UInt8?, _ locator: XMLLocator)
    throws(TraceError) -> UInt8

  /// The element whose state is `state` ends; `index` is where its end tag (or its
  /// self-closing start tag) begins in the locator's buffer.
  mutating func endElement(_ state: UInt8, at index: Int, _ locator: XMLLocator)
    throws(TraceError)

  /// Character data inside the root element, raw (references not yet replaced), or the
  /// content of a CDATA section; one run of text may come in several pieces. `text` points
  /// into the buffer being scanned: it stays valid until `bufferEnds()`.
  mutating func characters(_ text: UnsafeBufferPointer<UInt8>)

  /// The buffer the tokens were in is done with: copy what is still needed of it.
  mutating func bufferEnds()

  /// An element was skipped whole for exceeding a limit (lenient mode), with the reason.
  mutating func skipped(_ reason: String)
}
