import Foundation

/// A streaming, non-validating reader of just enough XML 1.0 for GPX, pushed chunk by chunk:
/// UTF-8 bytes in, start tags, end tags and character data out to an `XMLTokenHandler`.
///
/// It checks well-formedness of what it delivers (matching end tags, one root, no text
/// outside it, quoted attributes) and locates every error (1-based line and byte column). It
/// never reads a DTD and never resolves an entity: references stay in the delivered text (see
/// `XMLReferences.withUnescaped`).
///
/// **Limits.** Memory stays constant whatever the document size: one unfinished tag (at most
/// `maxMarkupBytes`) and the names of the open elements (at most `maxDepth` ×
/// `maxNameBytes`). An element beyond a limit — nested deeper than `maxDepth`, a name longer
/// than `maxNameBytes`, or a tag longer than `maxMarkupBytes` — is an error in strict mode; in
/// lenient mode that element is skipped whole (its content too) and reported to the handler's
/// `skipped`, and reading goes on after it. Inside a skipped element only the balance of start
/// and end tags is followed (their names are not kept, so not compared).
///
/// Whatever the chunking, the same document gives the same tokens and the same errors.
struct XMLTokenizer {
  /// Where the tokenizer is between chunks.
  enum Mode: Equatable {
    case content
    /// Inside `<!-- … -->`; the count of `-` just seen (0...2).
    case comment(Int)
    /// Inside `<? … ?>`; 1 after a `?`.
    case processingInstruction(Int)
    /// Inside `<![CDATA[ … ]]>` (trailing `]`s of a chunk are carried, so the terminator is
    /// always seen whole).
    case cdata
    /// Inside `<!DOCTYPE …>`: the open quote (0 for none) and whether in the `[…]` subset.
    case doctype(quote: UInt8, subset: Bool)
    /// Discarding the rest of a tag longer than `maxMarkupBytes` (lenient mode): the open
    /// quote, whether it is an end tag, and the byte before the current one (for `/>`).
    case overlongTag(quote: UInt8, isEndTag: Bool, previous: UInt8)
  }

  /// The longest tag (with its attributes) held across chunks.
  static let maxMarkupBytes = 1 << 20
  /// The deepest element nesting accepted.
  static let maxDepth = 256
  /// The longest element name accepted (so the open-element stack stays small).
  static let maxNameBytes = 1024

  /// The path shown in errors.
  let file: String?
  /// Whether a limit is an error (else the element is skipped).
  let strict: Bool

  private(set) var mode = Mode.content
  private(set) var rootSeen = false
  private(set) var rootClosed = false

  private var carry: [UInt8] = []
  private var bufferStart = 0
  private var line = 1
  private var lineStart = 0
  private var checkedStart = false

  /// The open elements: their names and the handler's state for each.
  private var open = XMLElementStack(capacity: XMLTokenizer.maxDepth)
  /// Open elements inside a skipped element, itself included (0: not skipping).
  private var skipDepth = 0
  /// The name of an over-long end tag being discarded.
  private var overlongEndName: [UInt8] = []

  /// Creates a tokenizer.
  /// - Parameters:
  ///   - file: The path shown in errors, or nil.
  ///   - strict: Make a limit an error instead of skipping the element.
  init(file: String?, strict: Bool) {
    self.file = file
    self.strict = strict
  }

  // MARK: Feeding

  /// Scans `bytes`, telling `handler` every token they complete.
  /// - Throws: `TraceError` for XML that is not well-formed, a limit in strict mode, or what
  ///   the handler throws. The tokenizer is not usable after an error.
  mutating func feed<H: XMLTokenHandler>(_ bytes: UnsafeBufferPointer<UInt8>, to handler: inout H)
    throws(TraceError)
  {
    XMLElementStack.makeUnique(&open)
    // On an error the handler is not used again (the tokenizer is not usable after one).
    defer { handler.bufferEnds() }
    var rest = bytes
    if !carry.isEmpty {
      // The markup carried from the last chunk is finished with the first bytes of this one
      // only: appending the whole chunk behind it copied nearly the whole document once more.
      let carried = carry.count
      let prefix = min(bytes.count, XMLTokenizer.carryCompletionBytes)
      carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<prefix]))
      let consumed = try scanCarry(&handler)
      if consumed < carried {
        // Longer than the prefix (rare): carried on with the rest of the chunk, as a whole.
        carry.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[prefix...]))
        _ = try scanCarry(&handler)
        return
      }
      // Scanning goes on in the chunk itself, where the combined scan stopped.
      carry.removeAll(keepingCapacity: true)
      rest = UnsafeBufferPointer(rebasing: bytes[(consumed - carried)...])
      if rest.isEmpty { return }
    }
    let consumed = try scan(rest, &handler)
    account(rest, consumed)
    if consumed < rest.count { carry.append(contentsOf: rest[consumed...]) }
  }

  /// How many bytes of a chunk finish the markup carried from the last one before the rest
  /// of the chunk is scanned in place.
  static let carryCompletionBytes = 4096

  /// Scans `carry` as far as complete markup goes and keeps the rest; returns how many bytes
  /// were consumed. The handler is told the buffer ends before the rest is moved to its
  /// front (text it holds in place may lie where the rest goes).
  private mutating func scanCarry<H: XMLTokenHandler>(_ handler: inout H) throws(TraceError)
    -> Int
  {
    var local: [UInt8] = []
    swap(&local, &carry)
    defer { swap(&local, &carry) }
    let consumed = try local.withUnsafeBufferPointer { (buffer) throws(TraceError) -> Int in
      let consumed = try scan(buffer, &handler)
      handler.bufferEnds()
      account(buffer, consumed)
      return consumed
    }
    local.removeFirst(consumed)
    return consumed
  }

  /// Whether the open element is inside a skipped one.
  var isSkipping: Bool { skipDepth > 0 }

  /// The located reason the document is incomplete at the end of what was fed, or nil for a
  /// complete document.
  func truncation() -> TraceError? {
    if rootClosed && open.isEmpty && mode == .content && carry.isEmpty { return nil }
    var reason: String
    if !rootSeen, carry.isEmpty, mode == .content {
      reason = "no <gpx> element (empty or not XML)"
    } else {
      reason = "document ends too early"
      switch mode {
      case .comment: reason += " inside a comment"
      case .cdata: reason += " inside a CDATA section"
      case .processingInstruction: reason += " inside a processing instruction"
      case .doctype: reason += " inside the DOCTYPE"
      case .overlongTag: reason += " inside a tag"
      case .content: if !carry.isEmpty { reason += " inside a tag" }
      }
      if !open.isEmpty {
        let names = (0..<open.depth).map { open.name(at: $0) }
        reason += "; unclosed <" + names.joined(separator: "> <") + ">"
      }
    }
    return endError(reason)
  }

  /// The error at the end of what has been fed (the carried bytes included).
  private func endError(_ reason: String) -> TraceError {
    var l = line
    var start = lineStart
    for (k, byte) in carry.enumerated() where byte == 0x0A {
      l += 1
      start = bufferStart + k + 1
    }
    let end = bufferStart + carry.count
    return TraceError(file: file, line: l, column: end - start + 1, reason: reason)
  }

  /// Moves the line bookkeeping past the first `consumed` bytes of `bytes`.
  private mutating func account(_ bytes: UnsafeBufferPointer<UInt8>, _ consumed: Int) {
    let newlines = XMLTokenizer.newlines(in: bytes, count: consumed)
    if newlines > 0 {
      line += newlines
      var k = consumed - 1
      while bytes[k] != 0x0A { k -= 1 }
      lineStart = bufferStart + k + 1
    }
    bufferStart += consumed
  }

  // MARK: Scanning

  /// Scans as far as complete markup goes; returns how many bytes were consumed.
  private mutating func scan<H: XMLTokenHandler>(
    _ b: UnsafeBufferPointer<UInt8>, _ handler: inout H
  ) throws(TraceError) -> Int {
    let n = b.count
    let locator = XMLLocator(
      file: file, buffer: b, line: line, lineStart: lineStart, bufferStart: bufferStart)
    var i = 0
    if !checkedStart {
      let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
      // Wait for 3 bytes before deciding, so the outcome never depends on chunking.
      if n < 3, b.elementsEqual(bom.prefix(n)) || b[0] == 0xFE || b[0] == 0xFF { return 0 }
      if (b[0] == 0xFE && b[1] == 0xFF) || (b[0] == 0xFF && b[1] == 0xFE) {
        throw locator.error(at: 0, "UTF-16 input is not supported; convert the file to UTF-8")
      }
      if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
      checkedStart = true
    }
    scanning: while i < n {
      switch mode {
      case .content:
        // Stays here while the mode does (nearly always): the mode is not reloaded per token.
        while i < n {
          let lt = XMLTokenizer.find(0x3C, b, from: i)
          if lt > i { try text(b, i, lt, locator, &handler) }
          if lt == n { return n }
          i = lt
          guard i + 1 < n else { return i }
          let next = b[i + 1]
          if next == 0x2F {
            let gt = XMLTokenizer.find(0x3E, b, from: i + 2)
            if gt - i > XMLTokenizer.maxMarkupBytes {
              i = try beginOverlongTag(
                b, at: i, resumeAt: i + XMLTokenizer.maxMarkupBytes + 1, isEndTag: true, quote: 0,
                locator)
              continue scanning
            }
            if gt == n { return i }
            try endTag(b, i, gt, locator, &handler)
            i = gt + 1
          } else if next == 0x21 {
            if XMLTokenizer.matches(b, i, "<!--") {
              mode = .comment(0)
              i += 4
              continue scanning
            } else if XMLTokenizer.matches(b, i, "<![CDATA[") {
              if open.isEmpty && skipDepth == 0 {
                throw locator.error(at: i, "CDATA outside the root element")
              }
              mode = .cdata
              i += 9
              continue scanning
            } else if XMLTokenizer.matches(b, i, "<!DOCTYPE") {
              if rootSeen { throw locator.error(at: i, "a DOCTYPE inside the document") }
              mode = .doctype(quote: 0, subset: false)
              i += 9
              continue scanning
            } else if n - i < 9 {
              return i
            } else {
              throw locator.error(at: i, "unknown markup starting with \"<!\"")
            }
          } else if next == 0x3F {
            mode = .processingInstruction(0)
            i += 2
            continue scanning
          } else {
            // The tag ends at the first `>` outside quotes, within `maxMarkupBytes`.
            let limit = min(n, i + XMLTokenizer.maxMarkupBytes + 1)
            var j = i + 1
            // Most tags are a bare name: skip the name's bytes (no quote, `<` or `>` among
            // them) before the byte-by-byte loop, and remember where the name ends.
            while j < limit, XMLTokenizer.isPlainTagByte(b[j]) { j += 1 }
            let nameEnd = j < limit && XMLTokenizer.endsName(b[j]) ? j : -1
            var quote: UInt8 = 0
            var found = false
            while j < limit {
              let c = b[j]
              if quote != 0 {
                if c == quote { quote = 0 }
              } else if c == 0x3E {
                found = true
                break
              } else if c == 0x22 || c == 0x27 {
                quote = c
              } else if c == 0x3C {
                throw locator.error(at: j, "\"<\" inside a tag")
              }
              j += 1
            }
            if !found {
              if j - i <= XMLTokenizer.maxMarkupBytes { return i }
              i = try beginOverlongTag(
                b, at: i, resumeAt: j, isEndTag: false, quote: quote, locator)
              continue scanning
            }
            i = try startTag(b, i, j, nameEnd: nameEnd, locator, &handler)
          }
        }
      case .comment(var dashes):
        while i < n {
          let c = b[i]
          i += 1
          if c == 0x2D {
            dashes = min(dashes + 1, 2)
          } else if c == 0x3E, dashes == 2 {
            dashes = -1
            break
          } else {
            dashes = 0
          }
        }
        mode = dashes < 0 ? .content : .comment(dashes)
      case .processingInstruction(var question):
        while i < n {
          let c = b[i]
          i += 1
          if c == 0x3F {
            question = 1
          } else if c == 0x3E, question == 1 {
            question = -1
            break
          } else {
            question = 0
          }
        }
        mode = question < 0 ? .content : .processingInstruction(question)
      case .cdata:
        var gt = XMLTokenizer.find(0x3E, b, from: i)
        while gt < n, !(gt >= i + 2 && b[gt - 1] == 0x5D && b[gt - 2] == 0x5D) {
          gt = XMLTokenizer.find(0x3E, b, from: gt + 1)
        }
        if gt < n {
          if skipDepth == 0 { handler.characters(UnsafeBufferPointer(rebasing: b[i..<(gt - 2)])) }
          mode = .content
          i = gt + 1
        } else {
          // Carry up to two trailing `]`: they may begin the terminator.
          var end = n
          while end > i, n - end < 2, b[end - 1] == 0x5D { end -= 1 }
          if skipDepth == 0, end > i {
            handler.characters(UnsafeBufferPointer(rebasing: b[i..<end]))
          }
          return end
        }
      case .doctype(var quote, var subset):
        var done = false
        while i < n {
          let c = b[i]
          i += 1
          if quote != 0 {
            if c == quote { quote = 0 }
          } else if c == 0x22 || c == 0x27 {
            quote = c
          } else if c == 0x5B {
            subset = true
          } else if c == 0x5D {
            subset = false
          } else if c == 0x3E, !subset {
            done = true
            break
          }
        }
        mode = done ? .content : .doctype(quote: quote, subset: subset)
      case .overlongTag(var quote, let isEndTag, var previous):
        var done = false
        while i < n {
          let c = b[i]
          i += 1
          if quote != 0 {
            if c == quote { quote = 0 }
          } else if c == 0x3E {
            done = true
            break
          } else if c == 0x22 || c == 0x27 {
            quote = c
          }
          previous = c
        }
        guard done else {
          mode = .overlongTag(quote: quote, isEndTag: isEndTag, previous: previous)
          return n
        }
        mode = .content
        try endOverlongTag(
          isEndTag: isEndTag, selfClosing: previous == 0x2F, at: i - 1, locator, &handler)
      }
    }
    return n
  }

  /// Character data between markup.
  private mutating func text<H: XMLTokenHandler>(
    _ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int, _ locator: XMLLocator,
    _ handler: inout H
  ) throws(TraceError) {
    if skipDepth > 0 { return }
    if open.isEmpty {
      for k in start..<end where !XMLTokenizer.isSpace(b[k]) {
        throw locator.error(
          at: k, rootSeen ? "text after the root element" : "text before the root element")
      }
    } else {
      handler.characters(UnsafeBufferPointer(rebasing: b[start..<end]))
    }
  }

  // MARK: Tags

  /// The start tag from `<` at `s` to `>` at `e`; `knownNameEnd` is where its name ends when
  /// the caller saw it with only plain bytes before it (else -1).
  /// - Returns: Where scanning resumes: after the tag, or after the element's end tag when
  ///   the element was read whole (see `readSimpleElement`).
  private mutating func startTag<H: XMLTokenHandler>(
    _ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, nameEnd knownNameEnd: Int,
    _ locator: XMLLocator, _ handler: inout H
  ) throws(TraceError) -> Int {
    let selfClosing = b[e - 1] == 0x2F
    if skipDepth > 0 {
      if !selfClosing { skipDepth += 1 }
      return e + 1
    }
    var nameEnd = knownNameEnd >= 0 ? knownNameEnd : s + 1
    while nameEnd < e, !XMLTokenizer.isSpace(b[nameEnd]), b[nameEnd] != 0x2F { nameEnd += 1 }
    guard nameEnd > s + 1 else { throw locator.error(at: s, "a tag without a name") }
    if open.isEmpty, rootSeen { throw locator.error(at: s, "a second root element") }
    if nameEnd - s - 1 > XMLTokenizer.maxNameBytes {
      try limit(
        "element name longer than \(XMLTokenizer.maxNameBytes) bytes",
        strictMessage: "an element name longer than \(XMLTokenizer.maxNameBytes) bytes",
        skipsContent: !selfClosing, at: s, locator, &handler)
      return e + 1
    }
    if !selfClosing, open.depth >= XMLTokenizer.maxDepth {
      try limit(
        "element nested deeper than \(XMLTokenizer.maxDepth)",
        strictMessage: "elements nested deeper than \(XMLTokenizer.maxDepth)",
        skipsContent: true, at: s, locator, &handler)
      return e + 1
    }
    var local = s + 1
    for k in (s + 1)..<nameEnd where b[k] == 0x3A { local = k + 1 }
    let tag = XMLStartTag(
      buffer: b, start: s, end: e, nameEnd: nameEnd, localNameStart: local,
      isSelfClosing: selfClosing)
    let state = try handler.startElement(tag, parent: open.lastState, locator)
    rootSeen = true
    if selfClosing {
      try handler.endElement(state, at: s, locator)
      if open.isEmpty { rootClosed = true }
      return e + 1
    }
    let name = UnsafeBufferPointer(rebasing: b[(s + 1)..<nameEnd])
    if knownNameEnd >= 0,
      let resume = try readSimpleElement(
        b, name: name, state: state, from: e + 1, locator, &handler)
    {
      return resume
    }
    open.push(name, state: state)
    return e + 1
  }

  /// Reads the rest of an element that is only text and its end tag, when all of it is in
  /// the buffer (`<ele>12.5</ele>`: most elements of a GPX point), without opening it on the
  /// stack; nil (nothing done) for anything else, which the general path then reads.
  ///
  /// It tells the handler exactly what the general path would: the text (when not empty),
  /// then the end, located at the end tag. `name` must hold no quote, `<` or `>`, so the end
  /// tag found here is the one the general path would find.
  @inline(__always)
  private mutating func readSimpleElement<H: XMLTokenHandler>(
    _ b: UnsafeBufferPointer<UInt8>, name: UnsafeBufferPointer<UInt8>, state: UInt8,
    from start: Int, _ locator: XMLLocator, _ handler: inout H
  ) throws(TraceError) -> Int? {
    let n = b.count
    let lt = XMLTokenizer.find(0x3C, b, from: start)
    let nameStart = lt + 2
    guard nameStart + name.count < n, b[lt + 1] == 0x2F else { return nil }
    for k in 0..<name.count where b[nameStart + k] != name[k] { return nil }
    var gt = nameStart + name.count
    let limit = min(n, lt + XMLTokenizer.maxMarkupBytes + 1)
    while gt < limit, XMLTokenizer.isSpace(b[gt]) { gt += 1 }
    guard gt < limit, b[gt] == 0x3E else { return nil }
    if lt > start { handler.characters(UnsafeBufferPointer(rebasing: b[start..<lt])) }
    try handler.endElement(state, at: lt, locator)
    if open.isEmpty { rootClosed = true }
    return gt + 1
  }

  private mutating func endTag<H: XMLTokenHandler>(
    _ b: UnsafeBufferPointer<UInt8>, _ s: Int, _ e: Int, _ locator: XMLLocator, _ handler: inout H
  ) throws(TraceError) {
    if skipDepth > 0 {
      skipDepth -= 1
      return
    }
    var nameEnd = e
    while nameEnd > s + 2, XMLTokenizer.isSpace(b[nameEnd - 1]) { nameEnd -= 1 }
    try close(UnsafeBufferPointer(rebasing: b[(s + 2)..<nameEnd]), at: s, locator, &handler)
  }

  /// Closes the open element, which must be named `name`.
  private mutating func close<H: XMLTokenHandler>(
    _ name: UnsafeBufferPointer<UInt8>, at s: Int, _ locator: XMLLocator, _ handler: inout H
  ) throws(TraceError) {
    guard let state = open.lastState else {
      let shown = String(decoding: name, as: UTF8.self)
      throw locator.error(at: s, "end tag </\(shown)> without a start tag")
    }
    guard open.innermostIs(name) else {
      let shown = String(decoding: name, as: UTF8.self)
      let expected = open.name(at: open.depth - 1)
      throw locator.error(at: s, "end tag </\(shown)> does not match <\(expected)>")
    }
    open.pop()
    try handler.endElement(state, at: s, locator)
    if open.isEmpty { rootClosed = true }
  }

  /// An element beyond a limit: an error in strict mode, else skipped (with its content when
  /// `skipsContent`) and reported.
  private mutating func limit<H: XMLTokenHandler>(
    _ reason: String, strictMessage: String, skipsContent: Bool, at s: Int,
    _ locator: XMLLocator, _ handler: inout H
  ) throws(TraceError) {
    if strict || open.isEmpty { throw locator.error(at: s, strictMessage) }
    handler.skipped(reason)
    if skipsContent { skipDepth = 1 }
  }

  /// A tag longer than `maxMarkupBytes` starts at `s`: an error in strict mode (or for the
  /// root), else its bytes up to `resumeAt` are dropped and the rest is discarded in
  /// `overlongTag` mode. Returns where scanning resumes.
  private mutating func beginOverlongTag(
    _ b: UnsafeBufferPointer<UInt8>, at s: Int, resumeAt: Int, isEndTag: Bool, quote: UInt8,
    _ locator: XMLLocator
  ) throws(TraceError) -> Int {
    if strict || (open.isEmpty && skipDepth == 0) {
      throw locator.error(at: s, "a tag longer than \(XMLTokenizer.maxMarkupBytes) bytes")
    }
    if isEndTag {
      var k = s + 2
      overlongEndName.removeAll(keepingCapacity: true)
      while k < resumeAt, !XMLTokenizer.isSpace(b[k]),
        overlongEndName.count <= XMLTokenizer.maxNameBytes
      {
        overlongEndName.append(b[k])
        k += 1
      }
    }
    mode = .overlongTag(quote: quote, isEndTag: isEndTag, previous: b[resumeAt - 1])
    return resumeAt
  }

  /// The `>` of an over-long tag was reached (at `index`): the element it starts is skipped
  /// whole, or the element it ends is closed.
  private mutating func endOverlongTag<H: XMLTokenHandler>(
    isEndTag: Bool, selfClosing: Bool, at index: Int, _ locator: XMLLocator, _ handler: inout H
  ) throws(TraceError) {
    let reason = "tag longer than \(XMLTokenizer.maxMarkupBytes) bytes"
    if isEndTag {
      if skipDepth > 0 {
        skipDepth -= 1
        return
      }
      handler.skipped(reason)
      let name = overlongEndName
      try name.withUnsafeBufferPointer { (bytes) throws(TraceError) in
        try close(bytes, at: index, locator, &handler)
      }
    } else if skipDepth > 0 {
      if !selfClosing { skipDepth += 1 }
    } else {
      handler.skipped(reason)
      if !selfClosing { skipDepth = 1 }
    }
  }

  // MARK: Byte helpers

  /// The number of `\n` in the first `count` bytes, 16 at a time: each lane of a byte
  /// vector counts its matches (a compare and a subtract per 16 bytes) for up to 255 rounds
  /// before the lanes are summed. The byte loop did not vectorise and took a fifth of the
  /// GPX reader's time; a word-at-a-time (SWAR) count still took a sixteenth.
  static func newlines(in bytes: UnsafeBufferPointer<UInt8>, count: Int) -> Int {
    guard let base = bytes.baseAddress, count > 0 else { return 0 }
    let raw = UnsafeRawPointer(base)
    let newline = SIMD16<UInt8>(repeating: 0x0A)
    let zero = SIMD16<UInt8>(repeating: 0)
    var total = 0
    var k = 0
    while k + 16 <= count {
      // At most 255 rounds, so that no lane overflows.
      let stop = min(count, k + 16 * 255)
      var lanes = zero
      while k + 16 <= stop {
        let v = raw.loadUnaligned(fromByteOffset: k, as: SIMD16<UInt8>.self)
        lanes &+= zero.replacing(with: 1, where: v .== newline)
        k += 16
      }
      total &+= Int(SIMD16<UInt16>(truncatingIfNeeded: lanes).wrappedSum())
    }
    while k < count {
      if bytes[k] == 0x0A { total += 1 }
      k += 1
    }
    return total
  }

  /// Whether `c` can be skipped while looking for the end of a tag's name: not white space,
  /// `/`, a quote, `<` or `>` (a bit set over the bytes below 64).
  @inline(__always)
  static func isPlainTagByte(_ c: UInt8) -> Bool {
    // Bits 0x09, 0x0A, 0x0D, 0x20, 0x22, 0x27, 0x2F, 0x3C and 0x3E.
    let special: UInt64 = 0x5000_8085_0000_2600
    return c >= 64 || (special >> UInt64(c)) & 1 == 0
  }

  /// Whether `c`, after a tag's plain bytes, ends its name: white space, `/` or `>`.
  @inline(__always)
  static func endsName(_ c: UInt8) -> Bool { isSpace(c) || c == 0x2F || c == 0x3E }

  /// Whether `c` is XML white space.
  @inline(__always)
  static func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }

  /// The index of the first `byte` at or after `from`, or `b.count`.
  ///
  /// Most runs are short (a value, the indentation before a tag, an end tag's name), where a
  /// call of `memchr` costs more than the search: the first 32 bytes are looked at a word
  /// at a time (a word XOR the byte repeated has a zero byte where it matched; the lowest
  /// flagged byte of `(x - 0x01…) & ~x & 0x80…` is the first zero byte), `memchr` beyond.
  @inline(__always)
  static func find(_ byte: UInt8, _ b: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
    guard from < b.count, let base = b.baseAddress else { return b.count }
    let raw = UnsafeRawPointer(base)
    let pattern = UInt64(byte) &* 0x0101_0101_0101_0101
    var k = from
    let inline = min(b.count, from + 32)
    while k + 8 <= inline {
      let x = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)) ^ pattern
      let zeroBytes = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
      if zeroBytes != 0 { return k + zeroBytes.trailingZeroBitCount >> 3 }
      k += 8
    }
    guard k < b.count else { return b.count }
    guard let hit = memchr(base + k, Int32(byte), b.count - k) else { return b.count }
    return UnsafeRawPointer(hit) - raw
  }

  /// Whether `b` holds `literal` at `at` (false when it runs out).
  static func matches(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard at + count <= b.count, let base = b.baseAddress else { return false }
    return memcmp(base + at, literal.utf8Start, count) == 0
  }

  /// Whether `name` is exactly `literal` (a byte loop: names are short, and a call of
  /// `memcmp` cost more than the comparison).
  @inline(__always)
  static func equals(_ name: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
    let count = literal.utf8CodeUnitCount
    guard name.count == count else { return false }
    let bytes = literal.utf8Start
    var k = 0
    while k < count {
      if name[k] != bytes[k] { return false }
      k += 1
    }
    return true
  }
}
