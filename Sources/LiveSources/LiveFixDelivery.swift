import Foundation
import MissionTracking

/// The delivery bookkeeping a live fix source (gpsd, a raw NMEA device) keeps across
/// connections: it drops fixes that are not newer than the last one delivered, and announces
/// the gap before the first fix after an outage.
///
/// The source owns the counters and the stream; this type only decides. Not thread-safe: it
/// lives in a local of the source's reader thread.
struct LiveFixDelivery: Sendable {
  /// What to do with one fix.
  enum Decision: Sendable, Equatable {
    /// Not newer than the last delivered fix: drop it and count it as stale.
    case drop
    /// Deliver it; when `gapDetail` is set, first emit a `gap` status with that detail.
    case deliver(gapDetail: String?)
  }

  /// What was unavailable during an outage, for the gap detail (`gpsd`, a device path).
  let outageSubject: String
  /// Fix time of the last delivered fix.
  private(set) var lastDelivered: Date?
  /// Whether a `noFix` status was emitted since the last delivered fix or connection.
  var inNoFixEpisode = false
  /// Set on reconnection after fixes were delivered; the next fix is preceded by `gap`.
  private(set) var gapPending = false
  /// When the last connection was lost, if no fix was delivered since.
  private(set) var lostAt: ContinuousClock.Instant?

  /// Creates the bookkeeping of one source run.
  ///
  /// - Parameter outageSubject: names what was unavailable in the gap detail, as in
  ///   "…, gpsd unavailable for 3 s".
  init(outageSubject: String) {
    self.outageSubject = outageSubject
  }

  /// Records a (re)connection: ends any no-fix episode, and after delivered fixes marks the
  /// next delivered fix as closing a gap.
  mutating func connected() {
    inNoFixEpisode = false
    if lastDelivered != nil { gapPending = true }
  }

  /// Records the loss of the connection at `instant`.
  mutating func lost(at instant: ContinuousClock.Instant = .now) {
    lostAt = instant
  }

  /// Decides what to do with `fix`, and on delivery records it as the last delivered.
  ///
  /// The gap detail reads "no fixes for X s of fix time" (the fix-time distance to the last
  /// delivered fix), followed by ", <subject> unavailable for Y s" (wall time since the loss
  /// up to `now`) when a loss was recorded.
  mutating func admit(_ fix: Fix, now: ContinuousClock.Instant = .now) -> Decision {
    if let last = lastDelivered, fix.time <= last { return .drop }
    var gapDetail: String?
    if gapPending, let last = lastDelivered {
      var detail = "no fixes for \(Self.format(fix.time.timeIntervalSince(last))) s of fix time"
      if let lostAt {
        detail += ", \(outageSubject) unavailable for \(Self.format(lostAt.duration(to: now))) s"
      }
      gapDetail = detail
    }
    gapPending = false
    lostAt = nil
    lastDelivered = fix.time
    inNoFixEpisode = false
    return .deliver(gapDetail: gapDetail)
  }

  /// Seconds with at most three decimals and no trailing zeros: `0.05`, `0.25`, `30`.
  static func format(_ seconds: Double) -> String {
    var text = String(format: "%.3f", seconds)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  /// `duration` in seconds, formatted as by `format(_:)` for a `Double`.
  static func format(_ duration: Duration) -> String {
    format(duration.seconds)
  }
}
