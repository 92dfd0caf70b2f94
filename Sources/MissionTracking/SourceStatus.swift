import Foundation

/// News about a fix source's health, reported as a `source` event.
public struct SourceStatus: Sendable, Hashable {
  /// What happened to the source.
  public enum Kind: String, Sendable, Hashable, CaseIterable {
    /// The source is connected (or the device opened) and reports are flowing.
    case connected
    /// The connection was lost or the device closed.
    case disconnected
    /// A new attempt to connect is scheduled.
    case reconnecting
    /// Reports resumed after an interruption; `detail` gives the gap.
    case gap
    /// The receiver is talking but has no position solution.
    case noFix = "no_fix"
    /// Connected, but no report arrived for the silence timeout; `connected` follows when
    /// reports resume.
    case silent
    /// The source ended normally (end of a trace, or stopped).
    case ended
  }

  /// What happened.
  public var kind: Kind
  /// Wall-clock time at which it happened, UTC.
  public var time: Date
  /// A short human explanation, e.g. `"gpsd at 127.0.0.1:2947"` or `"gap of 12.0 s"`.
  public var detail: String

  /// Creates a status report.
  public init(_ kind: Kind, time: Date = Date(), detail: String = "") {
    self.kind = kind
    self.time = time
    self.detail = detail
  }
}
