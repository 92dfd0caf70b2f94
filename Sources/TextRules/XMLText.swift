/// Escaping text for XML 1.0 character data and attribute values: the one escaper behind the
/// GPX writer and the SVG report (in TextRules so that both can reach it). The GPX
/// reader's side, replacing references, is `XMLReferences` in TraceFormats.
package enum XMLText {
  /// Appends `value` with `&`, `<`, `>`, `"`, `'` escaped. Characters XML 1.0 forbids (C0
  /// controls other than tab, LF and CR; U+FFFE, U+FFFF) become `replacement`, or are
  /// dropped when it is nil.
  package static func appendEscaped(
    _ value: String, to out: inout String, replacingForbiddenWith replacement: Unicode.Scalar?
  ) {
    for scalar in value.unicodeScalars {
      switch scalar {
      case "&": out += "&amp;"
      case "<": out += "&lt;"
      case ">": out += "&gt;"
      case "\"": out += "&quot;"
      case "'": out += "&apos;"
      case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
      case let s where s.value < 0x20 || s.value == 0xFFFE || s.value == 0xFFFF:
        if let replacement { out.unicodeScalars.append(replacement) }
      default: out.unicodeScalars.append(scalar)
      }
    }
  }
}
