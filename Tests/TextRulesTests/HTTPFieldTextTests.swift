import Testing
import TextRules

/// The one reading of HTTP field names and media types, shared by the service and the
/// ingest decoders.
@Suite struct HTTPFieldTextTests {
  @Test func namesDifferOnlyInTheCaseOfASCIILetters() {
    #expect(HTTPFieldText.namesEqual("Content-Type", "content-type"))
    #expect(HTTPFieldText.namesEqual("AUTHORIZATION", "authorization"))
    #expect(HTTPFieldText.namesEqual("", ""))
    #expect(!HTTPFieldText.namesEqual("content-type", "content-typ"))
    #expect(!HTTPFieldText.namesEqual("content-type", "content_type"))
    // Only ASCII letters fold: `[` is 0x5B and `{` 0x7B, 0x20 apart but not letters.
    #expect(!HTTPFieldText.namesEqual("x[", "x{"))
    #expect(!HTTPFieldText.namesEqual("Ä", "ä"))
    #expect(!HTTPFieldText.namesEqual("K", "\u{212A}"))  // Kelvin sign
    #expect(!HTTPFieldText.namesEqual("a\u{0}", "a"))
  }

  @Test(arguments: [
    ("application/json", "application/json"),
    ("Application/JSON; charset=UTF-8", "application/json"),
    (" \ttext/csv \t;x=y", "text/csv"),
    ("text/csv;", "text/csv"),
    (";charset=utf-8", ""),
    ("", ""),
    (" \t ", ""),
    // Only spaces and tabs are trimmed (RFC 9110's OWS); other text is kept as sent.
    ("application/json\u{A0}", "application/json\u{A0}"),
    ("TEXT/ÄB", "text/Äb"),
    ("a\u{0}b", "a\u{0}b"),
  ])
  func theMediaTypeIsTheValueBeforeItsParametersTrimmedAndLowerCased(
    value: String, expected: String
  ) {
    #expect(HTTPFieldText.mediaType(value) == expected)
  }
}
