import MissionTracking

/// One decoded position of a batch: the fix and, when the client sends one, its idempotency
/// key (OwnTracks `_id`, Traccar Client `location.uuid`), so a resent position is stored once.
package struct IngestPosition: Sendable, Hashable {
  /// The fix; its `source` is the protocol's name.
  package var fix: Fix
  /// The client's own id of this position, or nil.
  package var key: String?

  /// A position.
  package init(fix: Fix, key: String? = nil) {
    self.fix = fix
    self.key = key
  }
}
