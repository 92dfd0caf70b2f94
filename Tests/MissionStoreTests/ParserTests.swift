import Testing

@testable import MissionStore

@Suite struct ParserTests {
  private func records(_ text: String) throws -> [[String]] {
    try CSVReader.records(Array(text.utf8)).map(\.fields)
  }

  @Test func csvFollowsRFC4180() throws {
    #expect(try records("a,b\r\n1,2\r\n") == [["a", "b"], ["1", "2"]])
    #expect(try records("a,b\n1,2") == [["a", "b"], ["1", "2"]])  // no final newline
    #expect(try records("\"x,y\",\"he said \"\"hi\"\"\"\n") == [["x,y", "he said \"hi\""]])
    #expect(try records("\"two\nlines\",z\n") == [["two\nlines", "z"]])
    #expect(try records("a,,\n") == [["a", "", ""]])
    #expect(try records("\"\",\"\"\n") == [["", ""]])
    #expect(try records("\u{FEFF}id\n\n\n1\n") == [["id"], ["1"]])  // BOM, blank lines
  }

  @Test func csvRecordsKnowTheLineWhereTheyStart() throws {
    let lines = try CSVReader.records(Array("h\n\"a\nb\nc\"\n\nx\n".utf8)).map(\.line)
    #expect(lines == [1, 2, 6])
  }

  @Test func csvRejectsMalformedQuoting() {
    #expect(throws: CSVReader.Failure.self) { try CSVReader.records(Array("\"open\n".utf8)) }
    #expect(throws: CSVReader.Failure.self) { try CSVReader.records(Array("\"a\"b\n".utf8)) }
    #expect(throws: CSVReader.Failure.self) { try CSVReader.records(Array("a\"b\n".utf8)) }
  }

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
