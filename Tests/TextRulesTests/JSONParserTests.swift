import Foundation
import MissionProximity
import Testing
import TextRules

@Suite struct JSONParserTests {
  @Test func jsonParsesValuesAndKeepsLinesAndLiterals() throws {
    let root = try JSONParser.parse(
      Array("{\n \"a\": [1, -2.5e3, true, null],\n \"b\": \"\\\"\\n\\u00e9\"\n}".utf8))
    guard case .array(let items)? = root["a"]?.value else {
      Issue.record("no array")
      return
    }
    guard case .number(let n) = items[1].value else {
      Issue.record("no number")
      return
    }
    #expect(n == "-2.5e3")
    #expect(root["a"]?.line == 2 && root["b"]?.line == 3)
    guard case .string(let s)? = root["b"]?.value else {
      Issue.record("no string")
      return
    }
    #expect(s == "\"\né")
  }

  @Test(arguments: [
    "", "[1,]", "{\"a\" 1}", "01", "[1] x", "\"\\x\"", "\"\\ud800\"", "tru", "1.", "-",
  ])
  func jsonRejectsInvalidDocuments(text: String) {
    #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(text.utf8)) }
  }

  @Test func deeplyNestedJSONFailsInsteadOfCrashing() {
    let text = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(text.utf8)) }
  }

  /// A repeated name is refused naming both lines, in a small object (names scanned) and in
  /// one past 16 members (names hashed), wherever the repeat falls.
  @Test(arguments: [3, 16, 17, 40])
  func aRepeatedNameIsRefusedWithBothLines(members: Int) {
    for repeated in [0, members / 2, members - 1] {
      var lines = (0..<members).map { "\"k\($0)\": \($0)," }
      lines.append("\"k\(repeated)\": true")
      let text = "{\n" + lines.joined(separator: "\n") + "\n}"
      do {
        _ = try JSONParser.parse(Array(text.utf8))
        Issue.record("\(members) members, k\(repeated) twice: accepted")
      } catch {
        #expect(error.isDuplicateKey)
        #expect(error.line == members + 2)
        #expect(
          error.reason
            == "duplicate key 'k\(repeated)' in one object (first on line \(repeated + 2))")
      }
    }
    let distinct = "{" + (0..<members).map { "\"k\($0)\": \($0)" }.joined(separator: ",") + "}"
    #expect(throws: Never.self) { try JSONParser.parse(Array(distinct.utf8)) }
  }

  /// Strings, with and without escapes, invalid UTF-8 and raw control characters, read as
  /// Foundation's JSONSerialization reads them (a seeded random sample).
  @Test func stringsAreReadAsFoundationReadsThem() throws {
    let pieces: [[UInt8]] = [
      Array("a".utf8), Array("Zz 9".utf8), Array("é".utf8), Array("😀".utf8), Array("\\n".utf8),
      Array("\\\"".utf8), Array("\\\\".utf8), Array("\\u00e9".utf8), Array("\\ud83d\\ude00".utf8),
      Array("\\/".utf8), [0x09], [0x01], [0xFF], [0xC3], Array("\\q".utf8),
    ]
    var generator = SplitMix64(seed: 26)
    for _ in 0..<3_000 {
      var body: [UInt8] = []
      for _ in 0..<Int(generator.next() % 6) {
        body += pieces[Int(generator.next() % UInt64(pieces.count))]
      }
      let document = [0x22] + body + [0x22]
      let ours = try? JSONParser.parse(document)
      let theirs =
        try? JSONSerialization.jsonObject(with: Data(document), options: .fragmentsAllowed)
        as? String
      guard case .string(let text)? = ours?.value else {
        #expect(theirs == nil, "\(document) refused, Foundation reads \(theirs ?? "")")
        continue
      }
      #expect(text == theirs, "\(document)")
    }
  }

  @Test func aParseAsksEveryFewThousandValuesAndStopsWhenTheCheckSaysStop() throws {
    // 1 + 100,000 values, nested so that the stop comes from deep in the document.
    let bytes = Array(
      ("[" + Array(repeating: "[1]", count: 50_000).joined(separator: ",") + "]").utf8)
    var checks = 0
    let whole = try JSONParser.parse(bytes) {
      checks += 1
      return false
    }
    guard case .array(let items) = whole.value else {
      Issue.record("no array")
      return
    }
    #expect(items.count == 50_000)
    #expect((10...100).contains(checks), "\(checks) checks for 100,001 values")
    checks = 0
    let failure = #expect(throws: JSONParser.Failure.self) {
      try JSONParser.parse(bytes) {
        checks += 1
        return checks == 3
      }
    }
    #expect(failure?.isInterrupted == true)
    #expect(checks == 3, "asked again after it said stop")
    #expect(failure?.isDuplicateKey == false)
  }
}
