/// One consumer's cursor over the outbox while hand-overs complete out of order: the highest
/// `seq` such that every event up to it was handed over (delivered, dead or skipped).
///
/// Webhook deliveries finish in any order across missions and MQTT PUBACKs for different
/// messages may too; the stored cursor must still only pass events that are done, so a
/// restart resends what was not (at least once). Pure.
package struct OutboxCursor: Sendable, Equatable {
  /// Every event up to this `seq` is handed over.
  package private(set) var position: Int64
  /// The highest `seq` taken in (or the starting position).
  package private(set) var lastTaken: Int64
  /// Seqs taken in and not yet behind the position, in order (`order[head...]`).
  private var order: [Int64] = []
  private var head = 0
  /// Seqs in `order[head...]` that are handed over.
  private var finished: Set<Int64> = []

  /// A cursor resuming after `position`.
  package init(position: Int64) {
    self.position = position
    lastTaken = position
  }

  /// Events taken in and not yet behind the position.
  package var heldCount: Int { order.count - head }

  /// Takes in `seq` (read from the outbox); false, and nothing changes, when it is not
  /// after the last one taken (a repeat or an older event).
  package mutating func take(_ seq: Int64) -> Bool {
    guard seq > lastTaken else { return false }
    lastTaken = seq
    order.append(seq)
    return true
  }

  /// `seq` (taken before) is handed over; returns the new position when it moved.
  /// - Complexity: amortized O(1).
  package mutating func finish(_ seq: Int64) -> Int64? {
    finished.insert(seq)
    let before = position
    while head < order.count, finished.remove(order[head]) != nil {
      position = order[head]
      head += 1
    }
    // Drop the passed prefix now and then, so memory follows what is held, not what was seen.
    if head > 1024, head * 2 > order.count {
      order.removeFirst(head)
      head = 0
    }
    return position > before ? position : nil
  }

  /// Forgets every event held (the consumer was disabled); the position stays.
  package mutating func dropHeld() {
    order.removeAll()
    head = 0
    finished.removeAll()
  }
}
