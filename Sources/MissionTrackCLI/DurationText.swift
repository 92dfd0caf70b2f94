import Foundation
import TextRules

/// Durations on the command line: `90`, `90s`, `15m`, `1h30m`, `1.5h` (seconds when no unit).
enum DurationText {
  /// The number of seconds `text` says, or nil when it is not a duration (negative, empty,
  /// a unit repeated or out of order, not finite).
  static func seconds(_ text: String) -> Double? {
    let units: [(Character, Double)] = [("h", 3600), ("m", 60), ("s", 1)]
    var rest = Substring(text)
    if let plain = Double(decimalText: String(rest)), plain >= 0,
      rest.allSatisfy({ $0.isNumber || $0 == "." })
    {
      return plain
    }
    var total = 0.0
    var next = 0
    while !rest.isEmpty {
      let number = rest.prefix { $0.isNumber || $0 == "." }
      guard !number.isEmpty, let value = Double(decimalText: String(number)) else { return nil }
      rest = rest.dropFirst(number.count)
      guard let unit = rest.first,
        let index = units[next...].firstIndex(where: { $0.0 == unit })
      else { return nil }
      total += value * units[index].1
      next = index + 1
      rest = rest.dropFirst()
      if next == units.count && !rest.isEmpty { return nil }
    }
    return text.isEmpty ? nil : total
  }

  /// `"12m52s"`, `"45s"`, `"1h02m00s"`: whole seconds, for people.
  static func format(_ seconds: Double) -> String {
    let total = Int(seconds.rounded())
    let (h, m, s) = (total / 3600, total % 3600 / 60, total % 60)
    if h > 0 { return "\(h)h" + String(format: "%02dm%02ds", m, s) }
    if m > 0 { return "\(m)m" + String(format: "%02ds", s) }
    return "\(s)s"
  }
}
