import Foundation

extension String {
  /// The string without leading and trailing `CharacterSet.whitespaces` (Unicode Zs and
  /// tab), as `trimmingCharacters(in: .whitespaces)` gives it.
  ///
  /// A string that starts and ends with printable ASCII, as nearly every field of a mission
  /// file does, is returned as it is without a trip through Foundation (which bridges to
  /// `NSString` and was a tenth of a large import).
  var trimmingWhitespace: String {
    guard let first = utf8.first, let last = utf8.last else { return self }
    if Self.isPlainASCII(first) && Self.isPlainASCII(last) { return self }
    return trimmingCharacters(in: .whitespaces)
  }

  /// Whether the string is empty or only `CharacterSet.whitespacesAndNewlines`.
  var isBlank: Bool {
    guard let first = utf8.first else { return true }
    if Self.isPlainASCII(first) { return false }
    return trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
  }

  /// An ASCII byte that is neither whitespace nor a line break nor a control character: no
  /// trimming set holds it.
  private static func isPlainASCII(_ byte: UInt8) -> Bool { byte > 0x20 && byte < 0x7F }
}
