/// What the service did with a fix-lines batch: the body of its reply
/// `{"accepted","duplicates","untracked","rejected"}` (DESIGN §8).
package struct IngestOutcome: Sendable, Hashable {
  /// Positions recorded for the worker's tracked mission.
  package var accepted = 0
  /// Positions already recorded (a resent batch).
  package var duplicates = 0
  /// Positions acknowledged and dropped: no mission tracked at their fix time.
  package var untracked = 0
  /// Points refused: the decoder's rejections and the cleaner's.
  package var rejected = 0

  /// The counts.
  package init(accepted: Int = 0, duplicates: Int = 0, untracked: Int = 0, rejected: Int = 0) {
    self.accepted = accepted
    self.duplicates = duplicates
    self.untracked = untracked
    self.rejected = rejected
  }
}
