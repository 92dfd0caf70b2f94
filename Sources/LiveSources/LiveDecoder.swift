import MissionTracking
import TraceFormats

/// What a live decoder found in the input, in input order.
enum LiveItem: Equatable {
  /// A decoded fix (one per epoch), before the source's stale-fix check.
  case fix(Fix)
  /// The receiver is talking but reports that it has no fix.
  case noFix
  /// The receiver went away while the link stays up (gpsd's `DEVICE` with `activated: 0`);
  /// the text is the `disconnected` detail.
  case receiverLost(String)
  /// The receiver came back after `receiverLost`; the text is the `connected` detail.
  case receiverBack(String)
}

/// A trace decoder as the shared reader loop drives it: bytes in, items out, with the epoch
/// the decoder holds back released when the line goes quiet.
///
/// Implemented over the trace readers' own decoders (`NMEALiveDecoder` over `NMEADecoder`,
/// `GPSDLiveDecoder` over `GPSDJSONDecoder`), so a live fix equals the fix `missiontrack
/// decode` gives for the same bytes. One decoder serves one connection.
protocol LiveDecoder {
  /// Whether a held-back epoch is released after three epoch timeouts even while other
  /// input keeps arriving (gpsd: a stream of `SKY` reports without a pause must not hold a
  /// fix for ever). NMEA decoders close epochs themselves as new ones open, and an early
  /// release would split an epoch.
  static var releasesHeldEpochWhileBusy: Bool { get }
  /// Decodes `bytes` (any chunking: a line may span calls) and appends what they complete.
  mutating func feed(_ bytes: UnsafeRawBufferPointer, into items: inout [LiveItem])
  /// Whether a fix is held back waiting for more of its epoch.
  var holdsEpoch: Bool { get }
  /// Releases every held-back fix now.
  mutating func releaseHeldEpochs(into items: inout [LiveItem])
  /// The end of this connection's input: a partial last line is counted, held fixes released.
  mutating func finish(into items: inout [LiveItem])
  /// The wrapped decoder's counts so far.
  var statistics: TraceStatistics { get }
}

extension LiveDecoder {
  /// Runs `produce` on `wrapped` with the emptied `scratch` array and appends the fixes it
  /// produced to `items`.
  static func collect<Wrapped>(
    _ wrapped: inout Wrapped, _ scratch: inout [Fix], into items: inout [LiveItem],
    _ produce: (inout Wrapped, inout [Fix]) -> Void
  ) {
    scratch.removeAll(keepingCapacity: true)
    produce(&wrapped, &scratch)
    items.append(contentsOf: scratch.lazy.map(LiveItem.fix))
  }

  /// Calls `body` with each line of `bytes` (the last one may lack its newline), so items
  /// that depend on one line (a no-fix sentence) land between the fixes around it.
  static func forEachLine(
    _ bytes: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void
  ) {
    var start = 0
    while start < bytes.count {
      var end = start
      while end < bytes.count, bytes[end] != 0x0A { end += 1 }
      end = min(end + 1, bytes.count)
      body(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
      start = end
    }
  }
}
