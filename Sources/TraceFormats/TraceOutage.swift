import Foundation
import TextRules

/// A time window with no fixes at all: the receiver lost the sky (a tunnel, a building)
/// or the link to it.
///
/// Written `START+SECONDS` on the command line: `120+30` is a 30 s outage that starts 120 s
/// after the trace's first fix; `2026-05-04T10:12:00Z+30` starts at that UTC time.
public struct TraceOutage: Sendable, Hashable {
  /// Where an outage starts.
  public enum Start: Sendable, Hashable {
    /// Seconds after the first fix of the trace.
    case secondsAfterFirstFix(Double)
    /// An absolute UTC time.
    case time(Date)
  }

  /// Where the outage starts.
  public var start: Start
  /// How long it lasts, in seconds: fixes with `start ≤ time < start + durationSeconds` are
  /// removed.
  public var durationSeconds: Double

  /// Creates an outage.
  /// - Parameters:
  ///   - start: Where it starts.
  ///   - durationSeconds: How long it lasts, in seconds (positive).
  public init(start: Start, durationSeconds: Double) {
    self.start = start
    self.durationSeconds = durationSeconds
  }

  /// Reads `START+SECONDS`: START is seconds after the first fix (`120`, `90.5`) or an
  /// RFC 3339 time (`2026-05-04T10:12:00Z`); SECONDS is a positive number. Both numbers are
  /// decimal (`Double(decimalText:)`): no hexadecimal, `inf` or `nan`.
  /// - Throws: `TraceError` saying what is wrong with `text`.
  public init(parsing text: String) throws(TraceError) {
    let syntax = "expected START+SECONDS (e.g. 120+30 or 2026-05-04T10:12:00Z+30), got '\(text)'"
    guard let plus = text.lastIndex(of: "+") else { throw TraceError(reason: syntax) }
    let startText = text[..<plus]
    guard let duration = Double(decimalText: String(text[text.index(after: plus)...])) else {
      throw TraceError(reason: syntax)
    }
    if let offset = Double(decimalText: String(startText)) {
      self.init(start: .secondsAfterFirstFix(offset), durationSeconds: duration)
    } else if let parsed = UTCTime.parse(startText), startText.contains("T") {
      self.init(start: .time(parsed.date), durationSeconds: duration)
    } else {
      throw TraceError(reason: syntax)
    }
    try validate()
  }

  /// Checks the window: a finite, non-negative start offset and a finite, positive duration.
  /// - Throws: `TraceError` naming the bad value.
  public func validate() throws(TraceError) {
    guard durationSeconds.isFinite, durationSeconds > 0 else {
      throw TraceError(reason: "outage length must be a positive number of seconds")
    }
    if case .secondsAfterFirstFix(let offset) = start, !(offset.isFinite && offset >= 0) {
      throw TraceError(reason: "outage start must be at least 0 seconds after the first fix")
    }
  }

  /// Whether `time` falls in the window, given the time of the trace's first fix.
  func contains(_ time: Date, firstFixTime: Date) -> Bool {
    let begin: Date
    switch start {
    case .secondsAfterFirstFix(let offset): begin = firstFixTime.addingTimeInterval(offset)
    case .time(let date): begin = date
    }
    return time >= begin && time < begin.addingTimeInterval(durationSeconds)
  }
}
