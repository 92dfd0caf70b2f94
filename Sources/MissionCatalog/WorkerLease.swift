/// A held right to track one worker (`ServiceStore.claimTracking(holder:worker:)`).
package protocol WorkerLease: AnyObject, Sendable {
  /// Gives the right up (also done when this process exits).
  func release()
}
