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
  /// Counts so far.
  var statistics: TraceStatistics { get }
}
