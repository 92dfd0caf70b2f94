import Foundation
import MissionTracking

/// Releasing held epochs early, for live input: the decoder keeps up to three epochs open so
/// late sentences of out-of-order logs still join their epoch, which holds a live fix back by
/// up to three epochs (three seconds at 1 Hz). A live reader releases them when the line goes
/// quiet or the receiver reports no fix.
extension NMEADecoder {
  /// The decoder for a live receiver: lenient, with dates brought within 512 weeks of `now`
  /// (the system clock by default), as gpsd does, so a receiver with the 1024-week bug still
  /// gives today's dates.
  /// - Parameters:
  ///   - file: The device path, for messages.
  ///   - source: The `source` of the fixes produced.
  ///   - now: The reference time of the rollover correction.
  public static func live(file: String?, source: String = "nmea", now: Date = Date())
    -> NMEADecoder
  {
    NMEADecoder(file: file, strict: false, source: source, rollover: .around(now))
  }

  /// Whether any epoch is open (a fix may still be held back).
  package var hasOpenEpochs: Bool { hasEpoch || !olderEpochs.isEmpty }

  /// Closes every open epoch, the current one included, and appends their fixes in arrival
  /// order. A later sentence with the time of a closed epoch opens a new epoch.
  package mutating func releaseOpenEpochs(into fixes: inout [Fix]) {
    closeAllEpochs(into: &fixes)
  }

  /// Closes every open epoch except the current one (for in-order input: the epochs before
  /// it) and appends their fixes in arrival order.
  package mutating func releaseEarlierEpochs(into fixes: inout [Fix]) {
    guard !olderEpochs.isEmpty else { return }
    let earlier = olderEpochs
    olderEpochs.removeAll(keepingCapacity: true)
    for open in earlier { close(open, into: &fixes) }
  }
}
