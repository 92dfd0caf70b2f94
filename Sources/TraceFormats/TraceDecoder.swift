import MissionTracking

/// A streaming decoder of one trace format: bytes in, fixes out, in constant memory.
///
/// A reader feeds the input in chunks of any size (a chunk may end mid-line or mid-element)
/// and collects the fixes each call completes. In lenient mode a bad record is skipped and
/// counted in `statistics`; in strict mode the first one throws.
public protocol TraceDecoder {
  /// Decodes `chunk` and appends the fixes it completes to `fixes`.
  /// - Throws: `TraceError` for a bad record in strict mode, or input that cannot be read at all.
  mutating func decode(_ chunk: UnsafeRawBufferPointer, into fixes: inout [Fix]) throws(TraceError)
  /// Marks the end of input: flushes the last epoch and reports truncated input.
  mutating func finish(into fixes: inout [Fix]) throws(TraceError)
  /// Decodes `chunk` and appends what it completes as records, untimed points included (GPX).
  /// - Throws: As `decode(_:into:)` for fixes.
  mutating func decode(_ chunk: UnsafeRawBufferPointer, into records: inout [TraceRecord])
    throws(TraceError)
  /// Marks the end of input of the record form.
  mutating func finish(into records: inout [TraceRecord]) throws(TraceError)
  /// Counts so far.
  var statistics: TraceStatistics { get }
}

extension TraceDecoder {
  /// The record form of a format whose records are all timed: every fix as `.fix`, those
  /// completed before an error included.
  public mutating func decode(_ chunk: UnsafeRawBufferPointer, into records: inout [TraceRecord])
    throws(TraceError)
  {
    var fixes: [Fix] = []
    defer { records.append(contentsOf: fixes.lazy.map(TraceRecord.fix)) }
    try decode(chunk, into: &fixes)
  }

  /// The record form's end of input for a format whose records are all timed.
  public mutating func finish(into records: inout [TraceRecord]) throws(TraceError) {
    var fixes: [Fix] = []
    defer { records.append(contentsOf: fixes.lazy.map(TraceRecord.fix)) }
    try finish(into: &fixes)
  }
}
