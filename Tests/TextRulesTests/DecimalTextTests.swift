import Foundation
import MissionProximity
import Testing
import TextRules

/// The one decimal grammar, through both of its faces: bytes read in place
/// (`DecimalText.parseDouble`) and `Double(decimalText:)`.
@Suite struct DecimalTextTests {
  private func bytes(_ text: String) -> Double? {
    Array(text.utf8).withUnsafeBufferPointer { DecimalText.parseDouble($0) }
  }

  @Test(arguments: [
    "0", "-0", "+3", "5.", ".5", "-12.345", "1e5", "1E5", "1e+5", "2.5e-3", "007",
    "4807.038", "12345678901234567890123", "0.1234567890123456789012345", "1e-400",
  ])
  func decimalsReadAsTheStandardLibraryReadsThem(text: String) throws {
    let expected = try #require(Double(text))
    #expect(bytes(text)?.bitPattern == expected.bitPattern)
    #expect(Double(decimalText: text)?.bitPattern == expected.bitPattern)
  }

  @Test(arguments: [
    "", "+", "-", ".", "e5", "1e", "1e+", "1.2.3", "1e5.5", "--1", "+-1", "0x10", "0x1p4",
    "0X1P4", "inf", "-inf", "infinity", "nan", " 1", "1 ", "1,5", "١", "1_000",
  ])
  func anythingElseIsRefusedByBothFaces(text: String) {
    #expect(bytes(text) == nil)
    #expect(Double(decimalText: text) == nil)
  }

  @Test func overflowIsInfiniteInPlaceAndRefusedAsText() {
    #expect(bytes("1e400") == .infinity)
    #expect(bytes("-1e400") == -.infinity)
    #expect(Double(decimalText: "1e400") == nil)
  }

  /// Random numbers in the grammar, short and long, with and without exponents: the fast
  /// paths and `strtod` agree with the standard library bit for bit.
  @Test func randomDecimalsAreCorrectlyRounded() {
    var rng = SplitMix64(seed: 20_261_203)
    func digits(_ count: Int) -> String {
      String((0..<count).map { _ in Character(String(rng.next() % 10)) })
    }
    for _ in 0..<20_000 {
      var text = rng.next() % 2 == 0 ? "-" : ""
      text += digits(Int(rng.next() % 12) + 1)
      if rng.next() % 4 != 0 { text += "." + digits(Int(rng.next() % 16)) }
      if rng.next() % 3 == 0 { text += "e" + String(Int(rng.next() % 80) - 40) }
      guard let expected = Double(text) else { continue }
      #expect(bytes(text)?.bitPattern == expected.bitPattern, "\(text)")
      if bytes(text)?.bitPattern != expected.bitPattern { return }
    }
  }

  @Test func countsAreAtMostNineDigits() {
    func count(_ text: String) -> Int? {
      Array(text.utf8).withUnsafeBufferPointer { DecimalText.parseCount($0) }
    }
    #expect(count("0") == 0)
    #expect(count("123456789") == 123_456_789)
    #expect(count("1234567890") == nil)
    #expect(count("") == nil)
    #expect(count("+1") == nil)
    #expect(count("1.0") == nil)
  }
}
