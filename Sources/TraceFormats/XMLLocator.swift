/// Turns an offset in the buffer being scanned into a located `TraceError` (1-based line and
/// byte column), for the tokenizer and for the handlers it calls.
///
/// Made once per scanned buffer; counting the lines up to an offset happens only when an error
/// is made, so the cost of a located error is paid only on the error path.
struct XMLLocator {
  /// The path shown in errors.
  let file: String?
  /// The buffer being scanned.
  let buffer: UnsafeBufferPointer<UInt8>
  /// The 1-based line at the start of `buffer`.
  let line: Int
  /// The document offset of the start of that line.
  let lineStart: Int
  /// The document offset of `buffer[0]`.
  let bufferStart: Int

  /// The error located at `index` of `buffer`.
  func error(at index: Int, _ reason: String) -> TraceError {
    var l = line
    var start = lineStart
    for k in 0..<min(index, buffer.count) where buffer[k] == 0x0A {
      l += 1
      start = bufferStart + k + 1
    }
    return TraceError(file: file, line: l, column: bufferStart + index - start + 1, reason: reason)
  }
}
