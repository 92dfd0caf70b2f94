import Synchronization

/// Counters shared between a raw NMEA source and the reader threads it starts. `Sendable`
/// because every access goes through the mutex.
final class NMEADeviceSharedCounters: Sendable {
  private let state = Mutex(NMEADeviceCounters())

  /// A copy of the counters.
  var snapshot: NMEADeviceCounters { state.withLock { $0 } }

  /// Applies `change` under the lock.
  func update(_ change: (inout NMEADeviceCounters) -> Void) {
    state.withLock { change(&$0) }
  }
}
