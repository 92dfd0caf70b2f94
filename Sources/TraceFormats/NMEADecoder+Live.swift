import MissionTracking

/// Releasing held epochs early, for live input: the decoder keeps up to three epochs open so
/// late sentences of out-of-order logs still join their epoch, which holds a live fix back by
/// up to three epochs (three seconds at 1 Hz). A live reader releases them when the line goes
/// quiet or the receiver reports no fix.
extension NMEADecoder {
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
