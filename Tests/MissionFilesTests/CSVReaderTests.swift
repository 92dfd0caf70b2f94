import Testing

@testable import MissionFiles

@Suite struct CSVReaderTests {
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

  @Test func theSplitAsksEveryFewRowsAndStopsWhenTheCheckSaysStop() throws {
    let stride = MissionFileReader.rowsPerInterruptionCheck
    let bytes = Array(
      ("id,lat,lon\n" + (0..<(10 * stride)).map { "m\($0),1,2\n" }.joined()).utf8)
    var checks = 0
    let whole = try CSVReader.records(bytes) {
      checks += 1
      return false
    }
    #expect(whole.count == 10 * stride + 1)
    // Once per `stride` records (the header counts), not per byte or per row.
    #expect(checks == 10)
    checks = 0
    let failure = #expect(throws: CSVReader.Failure.self) {
      try CSVReader.records(bytes) {
        checks += 1
        return checks == 3
      }
    }
    #expect(failure?.isInterrupted == true)
    #expect(checks == 3, "asked again after it said stop")
  }
}
