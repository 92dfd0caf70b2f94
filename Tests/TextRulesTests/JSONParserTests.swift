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
}
