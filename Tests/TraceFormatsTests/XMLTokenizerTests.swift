import MissionTracking
import Testing

@testable import TraceFormats

@Suite("XML tokenizer")
struct XMLTokenizerTests {
  @Test func theWordAtATimeNewlineCountMatchesAByteLoop() {
    var random = SplitMix64(seed: 0x0A0A)
    for length in [0, 1, 7, 8, 9, 63, 64, 65, 1000] {
      // Newlines, their neighbours in every bit, and high bytes (a borrow must not leak).
      let alphabet: [UInt8] = [0x0A, 0x0B, 0x09, 0x8A, 0x00, 0xFF, 0x3C, 0x20]
      let bytes = (0..<length).map { _ in alphabet.randomElement(using: &random) ?? 0 }
      for start in [0, 1, 3] where start <= length {
        let slice = Array(bytes[start...])
        let expected = slice.filter { $0 == 0x0A }.count
        let counted = slice.withUnsafeBufferPointer {
          XMLTokenizer.newlines(in: $0, count: $0.count)
        }
        #expect(counted == expected, "length \(length) from \(start)")
      }
    }
  }
}
