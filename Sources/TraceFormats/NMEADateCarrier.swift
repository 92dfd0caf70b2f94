import Foundation
import MissionTracking

/// Gives every epoch a calendar day, although most NMEA sentences carry only a time of day.
///
/// - An epoch whose RMC or ZDA carries a date uses it.
/// - Otherwise the day is carried from the last dated epoch: a time of day more than 12 hours
///   *before* the last one means the next day (midnight passed), more than 12 hours *after*
///   means the previous day (a late sentence from before midnight). Smaller steps back (a
///   receiver restart, spliced captures) stay on the same day — unlike gpsd, which moves to the
///   next day whenever the hour decreases.
/// - Before any date is known, the fallback date (`--date`) is used when given. Without one,
///   undated epochs wait (at most `pendingLimit`) and are back-filled when the first date
///   arrives, counting midnight crossings among them — what GPSBabel does for a GGA-only log
///   dated by a final ZDA. Epochs still waiting at the end are dropped as "no date".
struct NMEADateCarrier {
  static let halfDayMicros: Int64 = 43_200_000_000
  /// Undated fixes kept for back-filling; beyond this the oldest are dropped (constant memory).
  static let pendingLimit = 100_000

  private var knownDay: Int?
  private var knownTimeOfDay: Int64 = 0
  private let fallbackDay: Int?

  /// Undated fixes (time set to the time of day only) with their day relative to the first.
  private var pending: [(fix: Fix, relativeDay: Int, timeOfDay: Int64)] = []
  private var pendingStart = 0
  /// Undated fixes dropped because the buffer was full.
  private(set) var droppedUndated = 0

  init(fallbackDay: Int?) { self.fallbackDay = fallbackDay }

  /// Whether fixes are waiting for a date.
  var hasPending: Bool { pendingStart < pending.count }

  /// The number of fixes waiting for a date.
  var pendingCount: Int { pending.count - pendingStart }

  /// The day steps between two times of day: +1 across midnight forward, -1 backward.
  private static func dayStep(from previous: Int64, to next: Int64) -> Int {
    if next < previous - halfDayMicros { return 1 }
    if next > previous + halfDayMicros { return -1 }
    return 0
  }

  /// The day for an epoch at `timeOfDay`, given the day its own sentences carried, or nil
  /// when no date is known yet (the caller then calls `hold`).
  mutating func day(for timeOfDay: Int64, own: Int?) -> Int? {
    if let own {
      knownDay = own
      knownTimeOfDay = timeOfDay
      return own
    }
    if let known = knownDay {
      let day = known + NMEADateCarrier.dayStep(from: knownTimeOfDay, to: timeOfDay)
      knownDay = day
      knownTimeOfDay = timeOfDay
      return day
    }
    if let fallbackDay {
      knownDay = fallbackDay
      knownTimeOfDay = timeOfDay
      return fallbackDay
    }
    return nil
  }

  /// Keeps an undated fix until a date arrives.
  mutating func hold(_ fix: Fix, timeOfDay: Int64) {
    var relative = 0
    if let last = pending.last, hasPending {
      relative = last.relativeDay + NMEADateCarrier.dayStep(from: last.timeOfDay, to: timeOfDay)
    }
    if pendingCount >= NMEADateCarrier.pendingLimit {
      pendingStart += 1
      droppedUndated += 1
      if pendingStart > 4096, pendingStart * 2 > pending.count {
        pending.removeFirst(pendingStart)
        pendingStart = 0
      }
    }
    pending.append((fix, relative, timeOfDay))
  }

  /// Dates the waiting fixes now that `day` is known for an epoch at `timeOfDay`, and appends
  /// them to `fixes` in arrival order.
  mutating func backFill(day: Int, timeOfDay: Int64, into fixes: inout [Fix]) {
    guard hasPending, let last = pending.last else { return }
    let anchorRelative =
      last.relativeDay + NMEADateCarrier.dayStep(from: last.timeOfDay, to: timeOfDay)
    for index in pendingStart..<pending.count {
      var fix = pending[index].fix
      let fixDay = day + pending[index].relativeDay - anchorRelative
      fix.time = Date(
        timeIntervalSince1970: Double(fixDay) * 86_400
          + Double(pending[index].timeOfDay) / 1_000_000)
      fixes.append(fix)
    }
    pending.removeAll(keepingCapacity: false)
    pendingStart = 0
  }

  /// Drops the fixes still waiting for a date and returns how many there were.
  mutating func dropPending() -> Int {
    let count = pendingCount
    pending.removeAll()
    pendingStart = 0
    return count
  }
}
