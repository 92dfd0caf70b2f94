/// Splits gpsd's byte stream into lines, enforcing a length limit.
///
/// A line longer than `maximumLineBytes` is discarded as it arrives (memory stays bounded
/// however long it gets) and reported once as `.overlong`; reading resumes after its
/// newline. A trailing `\r` is removed. Pure: no I/O.
struct GPSDLineFramer {
  /// One item out of the framer.
  enum Item: Equatable {
    /// A complete line without its terminator.
    case line([UInt8])
    /// A line that exceeded the limit and was dropped.
    case overlong
  }

  /// gpsd 3.22 caps its own responses at 4096 bytes (`GPS_JSON_RESPONSE_MAX`); the default
  /// leaves room for later versions' larger SKY reports.
  static let defaultMaximumLineBytes = 16_384

  let maximumLineBytes: Int
  private var pending: [UInt8] = []
  private var discarding = false

  init(maximumLineBytes: Int = GPSDLineFramer.defaultMaximumLineBytes) {
    self.maximumLineBytes = maximumLineBytes
  }

  /// Feeds bytes; returns the items they complete, in order.
  /// - Complexity: O(n) in the number of bytes fed.
  mutating func feed(_ bytes: some Collection<UInt8>) -> [Item] {
    var items: [Item] = []
    for byte in bytes {
      if byte == 0x0A {
        if discarding {
          discarding = false
        } else {
          if pending.last == 0x0D { pending.removeLast() }
          items.append(.line(pending))
        }
        pending.removeAll(keepingCapacity: true)
      } else if !discarding {
        if pending.count >= maximumLineBytes {
          discarding = true
          pending.removeAll(keepingCapacity: true)
          items.append(.overlong)
        } else {
          pending.append(byte)
        }
      }
    }
    return items
  }

  /// Forgets a partial line (after a disconnect, the next connection starts afresh).
  mutating func reset() {
    pending.removeAll(keepingCapacity: true)
    discarding = false
  }
}
