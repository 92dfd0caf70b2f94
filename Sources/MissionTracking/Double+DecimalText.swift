extension Double {
  /// The finite value of `text` written as a decimal number
  /// (`[+-]digits[.digits][(e|E)[+-]digits]`), as mission files and query strings give
  /// numbers; nil for anything else, among it hexadecimal (`0x10`, which `Double(_:)` alone
  /// takes), `nan`, `inf` and values too large to be finite.
  package init?(decimalText text: String) {
    let decimal = text.utf8.allSatisfy { byte in
      (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".")
        || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e")
        || byte == UInt8(ascii: "E")
    }
    guard decimal, let value = Double(text), value.isFinite else { return nil }
    self = value
  }
}
