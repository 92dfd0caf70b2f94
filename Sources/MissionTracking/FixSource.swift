/// Anything that can produce position reports for the tracker: a gpsd connection, a serial
/// NMEA device, a replayed trace.
///
/// The tracker calls `reports()` when a mission becomes active and stops iterating (cancels
/// its task) when the mission is submitted, cancelled or expires. Ending the iteration must
/// stop the producer and release the device or connection: a source built on
/// `AsyncThrowingStream` does that in its `onTermination` handler.
public protocol FixSource: Sendable {
  /// Opens the source and returns its reports in arrival order.
  func reports() -> AsyncThrowingStream<SourceReport, any Error>
}

/// One item from a `FixSource`: a position, or news about the source itself.
public enum SourceReport: Sendable, Hashable {
  /// A decoded position report, before cleaning.
  case fix(Fix)
  /// A change in the source's health (connected, disconnected, no fix, ...).
  case status(SourceStatus)
}
