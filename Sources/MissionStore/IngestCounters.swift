/// What the recorder committed through one `MissionDatabase` since it was opened.
public struct IngestCounters: Sendable, Hashable {
  /// Events committed to the events table.
  public var events = 0
  /// Fixes added to tracks.
  public var fixes = 0
  /// Fixes skipped because the track already held a fix at that time (a replayed or resumed
  /// batch); their events are skipped too.
  public var duplicateFixes = 0
  /// Transactions committed by the recorder.
  public var commits = 0

  /// All zero.
  public init() {}
}
