import Synchronization

/// Every byte a live source read, in order: lets a test decode exactly what the client
/// received (`decode` of it must give the live fixes). `Sendable` because every access goes
/// through the mutex.
final class LiveTranscript: Sendable {
  private let bytes = Mutex<[UInt8]>([])

  /// A copy of what was recorded so far.
  var recorded: [UInt8] { bytes.withLock { $0 } }

  /// Appends `chunk`.
  func append(_ chunk: UnsafeRawBufferPointer) {
    bytes.withLock { $0.append(contentsOf: chunk) }
  }
}
