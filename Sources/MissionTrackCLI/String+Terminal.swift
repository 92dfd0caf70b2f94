extension String {
  /// The text with everything a terminal would act on instead of show made visible: C0
  /// controls (`\n`, `\r`, `\t` by name, the rest such as ESC as `\x1B`), DEL, C1 controls
  /// (`\x9B` is a one-byte CSI), the Unicode line and paragraph separators and the bidi
  /// controls that reorder text (`\u{202E}`). An imported title can then neither clear the
  /// screen, set the window title, nor break a table row or a one-line error message.
  ///
  /// Printable text, including every non-ASCII letter, is kept as it is. JSON output does
  /// not use this: it keeps the exact text, JSON-escaped.
  var terminalSafe: String {
    guard unicodeScalars.contains(where: \.needsTerminalEscape) else { return self }
    var out = ""
    out.reserveCapacity(utf8.count + 8)
    for scalar in unicodeScalars {
      guard scalar.needsTerminalEscape else {
        out.unicodeScalars.append(scalar)
        continue
      }
      switch scalar {
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      default:
        let hex = String(scalar.value, radix: 16, uppercase: true)
        out += scalar.value < 0x100 ? "\\x" + (hex.count < 2 ? "0" + hex : hex) : "\\u{\(hex)}"
      }
    }
    return out
  }
}

extension Unicode.Scalar {
  /// Whether `String.terminalSafe` escapes this scalar.
  fileprivate var needsTerminalEscape: Bool {
    switch value {
    case 0x00...0x1F, 0x7F...0x9F: true
    case 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
    default: false
    }
  }
}
