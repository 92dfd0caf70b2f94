import MissionTracking
import TextRules

/// Text and number formatting for SVG output.
enum SVGText {
  /// `text` escaped for XML character data and attribute values (`&`, `<`, `>`, `"`, `'`).
  /// Characters XML 1.0 forbids (C0 controls other than tab, newline and carriage return,
  /// lone surrogates cannot occur in a Swift string, U+FFFE and U+FFFF) become U+FFFD.
  static func escape(_ text: String) -> String {
    var out = ""
    out.reserveCapacity(text.utf8.count)
    XMLText.appendEscaped(text, to: &out, replacingForbiddenWith: "\u{FFFD}")
    return out
  }

  /// A coordinate for the page with at most one decimal (`12.3`, `-4`, `0`); non-finite
  /// values become 0 and huge ones are clamped, so the output always parses.
  static func number(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    let tenths = Int((min(max(value, -1e12), 1e12) * 10).rounded())
    let magnitude = tenths.magnitude
    let whole = String(magnitude / 10)
    let fraction = magnitude % 10
    let sign = tenths < 0 ? "-" : ""
    return fraction == 0 ? sign + whole : sign + whole + "." + String(fraction)
  }

  /// Estimated width in pixels of `text` at `fontSize` in DejaVu Sans / Helvetica-like
  /// fonts (digits and most letters are about 0.6 em wide); used to keep labels apart.
  static func estimatedWidth(_ text: String, fontSize: Double) -> Double {
    Double(text.count) * fontSize * 0.62
  }
}
