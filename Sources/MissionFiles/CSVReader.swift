/// RFC 4180 CSV: comma-separated fields, records ended by CRLF or LF, fields optionally in
/// double quotes (which may hold commas, line breaks and `""` for a quote).
struct CSVReader {
  /// One record and the 1-based line where it starts.
  struct Record {
    let line: Int
    let fields: [String]
  }

  /// Why reading failed, and on which line.
  struct Failure: Error {
    let line: Int
    let reason: String
    /// Whether the caller's interruption check stopped the split (no fault of the file).
    var isInterrupted = false
  }

  /// Splits `bytes` into records; blank lines are skipped, a UTF-8 BOM is ignored.
  /// - Parameters:
  ///   - bytes: The whole file.
  ///   - isInterrupted: Asked every `MissionFileReader.rowsPerInterruptionCheck` records:
  ///     true stops the split (a stopping server must not wait for a large file).
  /// - Throws: `Failure` with the line and the reason; one with `isInterrupted` set once
  ///   `isInterrupted` said stop.
  /// - Complexity: O(n) in the bytes.
  static func records(_ bytes: [UInt8], isInterrupted: () -> Bool = { false }) throws(Failure)
    -> [Record]
  {
    var records: [Record] = []
    var index = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    var line = 1
    var recordLine = 1
    var fields: [String] = []
    var field: [UInt8] = []
    var inQuotes = false
    var quoted = false  // the current field was quoted
    var afterQuote = false  // the closing quote was seen
    var recordHasBytes = false
    var quoteLine = 1

    func text(of bytes: [UInt8]) throws(Failure) -> String {
      // ASCII is valid UTF-8: skip the generic validating initialiser (its slow path was
      // the largest part of reading a big file).
      if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw Failure(line: line, reason: "field is not valid UTF-8")
      }
      return text
    }

    func finishField() throws(Failure) {
      fields.append(try text(of: field))
      field.removeAll(keepingCapacity: true)
      quoted = false
      afterQuote = false
    }

    func finishRecord() throws(Failure) {
      let blank = fields.isEmpty && field.isEmpty && !quoted
      if !blank {
        try finishField()
        records.append(Record(line: recordLine, fields: fields))
      }
      fields = []
      recordHasBytes = false
    }

    while index < bytes.count {
      let b = bytes[index]
      if !recordHasBytes {
        recordHasBytes = true
        recordLine = line
      }
      if inQuotes {
        if b == UInt8(ascii: "\"") {
          if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
            field.append(b)
            index += 2
            continue
          }
          inQuotes = false
          afterQuote = true
        } else {
          if b == 0x0A { line += 1 }
          field.append(b)
        }
        index += 1
        continue
      }
      switch b {
      case UInt8(ascii: "\""):
        guard field.isEmpty, !quoted else {
          throw Failure(line: line, reason: "quote inside an unquoted field")
        }
        inQuotes = true
        quoted = true
        quoteLine = line
        index += 1
      case UInt8(ascii: ","):
        try finishField()
        index += 1
      case 0x0A, 0x0D:
        if b == 0x0D {
          guard index + 1 < bytes.count, bytes[index + 1] == 0x0A else {
            throw Failure(line: line, reason: "carriage return without line feed")
          }
          index += 1
        }
        try finishRecord()
        index += 1
        line += 1
        if records.count % MissionFileReader.rowsPerInterruptionCheck == 0, isInterrupted() {
          throw Failure(line: line, reason: "interrupted", isInterrupted: true)
        }
      default:
        guard !afterQuote else {
          throw Failure(line: line, reason: "text after the closing quote of a field")
        }
        field.append(b)
        index += 1
      }
    }
    if inQuotes { throw Failure(line: quoteLine, reason: "unterminated quoted field") }
    if recordHasBytes { try finishRecord() }
    return records
  }
}
