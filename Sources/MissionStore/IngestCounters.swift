/// What the recorder committed through one `MissionDatabase` since it was opened.
package struct IngestCounters: Sendable, Hashable {
  /// Events committed to the events table.
  package var events = 0
  /// Fixes added to tracks.
  package var fixes = 0
  /// Fixes skipped because the track already held a fix at that time (a replayed or resumed
  /// batch); their events are skipped too.
  package var duplicateFixes = 0
  /// Transactions committed by the recorder.
  package var commits = 0

  /// All zero.
  package init() {}
}
