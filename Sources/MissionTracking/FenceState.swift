import Foundation

/// Whether the worker is inside one geofence, and since when: the evaluator's memory, which
/// the store persists so that a restart after a crash gives no duplicate `enter`.
public struct FenceState: Sendable, Hashable {
  /// Inside (entered and not yet exited).
  public var isInside: Bool
  /// Fix time of the enter, when inside.
  public var insideSince: Date?
  /// Whether the dwell event was already emitted for this stay.
  public var dwellReported: Bool

  /// Creates a fence state; the default is outside.
  public init(isInside: Bool = false, insideSince: Date? = nil, dwellReported: Bool = false) {
    self.isInside = isInside
    self.insideSince = insideSince
    self.dwellReported = dwellReported
  }
}
