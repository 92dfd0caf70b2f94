import Foundation

/// The body of a streamed response (Server-Sent Events): bytes pushed by the service and
/// sent by `HTTPServer` while the connection stays open.
///
/// A stream holds at most `capacity` unsent bytes: a push beyond that closes it (the client
/// is too slow and is dropped), so a stalled reader never holds up the pusher or grows
/// without bound. Thread-safe.
final class ResponseStream: @unchecked Sendable {
  /// The most unsent bytes the stream holds before it drops its client.
  let capacity: Int
  private let lock = NSLock()
  private var pending: [UInt8] = []
  private var sent = 0
  private var closed = false
  private var overflowed = false
  /// Called (once, under the lock) when bytes or the close arrive while the server waits
  /// for them; set by `HTTPServer`.
  private var wake: (() -> Void)?

  /// A stream that drops its client beyond `capacity` unsent bytes.
  init(capacity: Int = 1 << 20) { self.capacity = capacity }

  /// Whether the stream is closed (by the service, by an overflow or by the server).
  var isClosed: Bool { lock.withLock { closed } }

  /// Bytes queued and not yet sent.
  var pendingCount: Int { lock.withLock { pending.count - sent } }

  /// Queues `bytes`; false when the stream is closed (now or before).
  @discardableResult
  func push(_ bytes: [UInt8]) -> Bool {
    lock.withLock {
      guard !closed else { return false }
      if pending.count - sent + bytes.count > capacity {
        closed = true
        overflowed = true
      } else {
        pending.append(contentsOf: bytes)
      }
      wakeLocked()
      return !closed
    }
  }

  /// Closes the stream: what is queued is still sent, then the response ends.
  func close() {
    lock.withLock {
      closed = true
      wakeLocked()
    }
  }

  private func wakeLocked() {
    let wake = self.wake
    self.wake = nil
    wake?()
  }

  /// What `HTTPServer` does with the stream next.
  enum Read {
    /// `count` bytes were copied.
    case bytes(Int)
    /// Nothing to send now; `wake` runs when there is (it was stored, under the lock, after
    /// `suspend` ran).
    case waiting
    /// The stream ended.
    case end
  }

  /// Copies up to `max` unsent bytes to `buffer`; when there are none, runs `suspend` and
  /// stores `wake` (both under the lock, so no push is missed in between).
  func read(
    into buffer: UnsafeMutableRawBufferPointer, suspend: () -> Void,
    wake: @escaping () -> Void
  ) -> Read {
    lock.withLock {
      let available = pending.count - sent
      if available > 0 && !overflowed {
        let count = min(available, buffer.count)
        pending.withUnsafeBytes { bytes in
          buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[sent..<sent + count]))
        }
        sent += count
        if sent == pending.count {
          pending.removeAll(keepingCapacity: true)
          sent = 0
        }
        return .bytes(count)
      }
      if closed { return .end }
      suspend()
      self.wake = wake
      return .waiting
    }
  }
}
