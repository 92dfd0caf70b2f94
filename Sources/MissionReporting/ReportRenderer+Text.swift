import Foundation
import MissionTracking
import TextRules

extension ReportRenderer {
  /// `10:05:03`: the UTC clock time of `date`, to the second.
  static func clockText(_ date: Date) -> String {
    let text = UTCTime.format(date)
    return String(text.dropFirst(11).prefix(8))
  }

  /// `2024-05-01 10:05:03`: UTC date and time to the second.
  static func dateTimeText(_ date: Date) -> String {
    let text = UTCTime.format(date)
    return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(8))
  }

  /// `45 s`, `12 min 5 s`, `2 h 3 min`, `3 d 4 h`.
  static func durationText(_ seconds: Double) -> String {
    guard seconds.isFinite else { return "?" }
    let total = Int(max(0, seconds).rounded())
    if total < 60 { return "\(total) s" }
    func join(_ big: Int, _ bigUnit: String, _ small: Int, _ smallUnit: String) -> String {
      small == 0 ? "\(big) \(bigUnit)" : "\(big) \(bigUnit) \(small) \(smallUnit)"
    }
    if total < 3600 { return join(total / 60, "min", total % 60, "s") }
    if total < 86_400 { return join(total / 3600, "h", total / 60 % 60, "min") }
    return join(total / 86_400, "d", total / 3600 % 24, "h")
  }

  /// `850 m`, `1.84 km`, `12.3 km`.
  static func distanceText(_ meters: Double) -> String {
    guard meters.isFinite else { return "?" }
    if meters < 1000 { return String(format: "%.0f m", meters) }
    if meters < 10_000 { return String(format: "%.2f km", meters / 1000) }
    return String(format: "%.1f km", meters / 1000)
  }

  /// One line about an event for people, without its time: `enter 43 m from the point`.
  static func eventText(_ event: TrackingEvent) -> String {
    switch event.kind {
    case .fix(_, let distance, _): "fix \(distanceText(distance)) away"
    case .enter(_, let distance, let initial):
      "enter at \(distanceText(distance))" + (initial ? " (started inside)" : "")
    case .dwell(_, let seconds): "dwell \(durationText(seconds)) inside"
    case .exit(_, let distance): "exit at \(distanceText(distance))"
    case .crossed(_, let closest): "crossed, closest \(distanceText(closest))"
    case .state(let from, let to): "state \(from.rawValue) \u{2192} \(to.rawValue)"
    case .source(let status, let detail):
      "source \(status.rawValue)" + (detail.isEmpty ? "" : ": \(detail)")
    case .rejected(let reason, let count): "rejected \(count) \(reason)"
    case .nearby(let watch, let distance): "near watch \(watch), \(distanceText(distance))"
    }
  }

  /// The map symbol of a fence event, nil for other events.
  static func marker(for event: TrackingEvent) -> ReportMarker? {
    switch event.kind {
    case .enter: .enter
    case .dwell: .dwell
    case .exit: .exit
    case .crossed: .crossed
    default: nil
    }
  }

  /// Splits `text` into at most `maximumLines` lines of at most `width` characters, at
  /// spaces where possible; a cut-off last line ends in an ellipsis.
  ///
  /// Stops once it has one line more than it shows, and never counts more of a word than a
  /// line holds: a title of a million characters costs what a short one does.
  /// - Complexity: O(`width` × `maximumLines`) characters examined, after splitting at spaces.
  static func wrap(_ text: String, width: Int, maximumLines: Int) -> [String] {
    var lines: [String] = []
    var current = ""
    var currentLength = 0
    words: for word in text.split(separator: " ", omittingEmptySubsequences: true) {
      var rest = word
      var head = rest.prefix(width + 1)
      while head.count > width {
        if !current.isEmpty {
          lines.append(current)
          current = ""
          currentLength = 0
        }
        lines.append(String(rest.prefix(width)))
        if lines.count > maximumLines { break words }
        rest = rest.dropFirst(width)
        head = rest.prefix(width + 1)
      }
      let length = head.count
      if current.isEmpty {
        current = String(rest)
        currentLength = length
      } else if currentLength + 1 + length <= width {
        current += " " + rest
        currentLength += 1 + length
      } else {
        lines.append(current)
        if lines.count > maximumLines { break words }
        current = String(rest)
        currentLength = length
      }
    }
    if !current.isEmpty { lines.append(current) }
    if lines.count > maximumLines {
      lines = Array(lines.prefix(maximumLines))
      var last = lines[maximumLines - 1]
      if last.count >= width { last = String(last.prefix(width - 1)) }
      lines[maximumLines - 1] = last + "\u{2026}"
    }
    return lines
  }
}
