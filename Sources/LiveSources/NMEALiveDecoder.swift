import MissionTracking
import TraceFormats

/// `NMEADecoder` (the trace reader's, lenient) driven by the live reader loop.
///
/// A sentence that reports no fix releases the epochs before it first, so the fixes before
/// a no-fix episode come out before its `noFix` item.
struct NMEALiveDecoder: LiveDecoder {
  static let releasesHeldEpochWhileBusy = false

  private var decoder: NMEADecoder
  private var fixes: [Fix] = []

  /// A decoder whose error messages name `path`.
  init(path: String) {
    // Live: dates are brought within 512 GPS weeks of the system clock (week rollover).
    decoder = NMEADecoder.live(file: path, source: "nmea")
  }

  var holdsEpoch: Bool { decoder.hasOpenEpochs }
  var statistics: TraceStatistics { decoder.statistics }

  mutating func feed(_ bytes: UnsafeRawBufferPointer, into items: inout [LiveItem]) {
    Self.forEachLine(bytes) { line in
      let noFixBefore = decoder.statistics.skipped["no fix"] ?? 0
      // Lenient decoding never throws: bad sentences are counted in its statistics.
      Self.collect(&decoder, &fixes, into: &items) { try? $0.decode(line, into: &$1) }
      if decoder.statistics.skipped["no fix"] ?? 0 > noFixBefore {
        Self.collect(&decoder, &fixes, into: &items) { $0.releaseEarlierEpochs(into: &$1) }
        items.append(.noFix)
      }
    }
  }

  mutating func releaseHeldEpochs(into items: inout [LiveItem]) {
    Self.collect(&decoder, &fixes, into: &items) { $0.releaseOpenEpochs(into: &$1) }
  }

  mutating func finish(into items: inout [LiveItem]) {
    Self.collect(&decoder, &fixes, into: &items) { try? $0.finish(into: &$1) }
  }
}
