/// `text` on one line, for an error message that quotes a value from a file or the SQL that
/// failed: with `foldingWhitespace` (SQL) every run of white space, line breaks included,
/// becomes one space; text longer than `limit` characters is cut there with `…`; control
/// characters left are shown as `\n`, `\r`, `\t` or `\xHH`.
package func oneLine(_ text: String, limit: Int? = nil, foldingWhitespace: Bool = false)
  -> String
{
  var out =
    foldingWhitespace ? text.split(whereSeparator: \.isWhitespace).joined(separator: " ") : text
  if let limit, out.count > limit { out = String(out.prefix(limit)) + "…" }
  guard out.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
  else { return out }
  var escaped = ""
  for scalar in out.unicodeScalars {
    switch scalar.value {
    case 0x0A: escaped += "\\n"
    case 0x0D: escaped += "\\r"
    case 0x09: escaped += "\\t"
    case 0..<0x20, 0x7F...0x9F:
      let hex = String(scalar.value, radix: 16, uppercase: true)
      escaped += "\\x" + (hex.count < 2 ? "0" + hex : hex)
    default: escaped.unicodeScalars.append(scalar)
    }
  }
  return escaped
}
