extension Double {
  /// The finite value of `text` written as a decimal number
  /// (`[+-]digits[.digits][(e|E)[+-]digits]`, the grammar of `DecimalText.parseDouble`), as
  /// mission files, query strings and command-line options give numbers; nil for anything
  /// else, among it hexadecimal (`0x10`, which `Double(_:)` alone takes), `nan`, `inf` and
  /// values too large to be finite.
  package init?(decimalText text: String) {
    var text = text
    let parsed = text.withUTF8 { DecimalText.parseDouble($0) }
    guard let parsed, parsed.isFinite else { return nil }
    self = parsed
  }
}
