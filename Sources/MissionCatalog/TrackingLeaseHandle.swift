/// A tracking lease taken from a `TrackingLeaseStore`.
package protocol TrackingLeaseHandle: Sendable {
  /// Gives the lease up (also done when the lease is deallocated or the process exits).
  func release()
}
