/// Why a trace could not be read or written, and where: file, line and (for XML) column.
public struct TraceError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The path of the trace, `-` for standard input, or nil when reading from memory.
  public var file: String?
  /// 1-based line number, when known.
  public var line: Int?
  /// 1-based column, when known (XML).
  public var column: Int?
  /// What was wrong, in a few words, e.g. `"bad checksum *3A, computed *3B"`.
  public var reason: String

  /// Creates an error.
  public init(file: String? = nil, line: Int? = nil, column: Int? = nil, reason: String) {
    self.file = file
    self.line = line
    self.column = column
    self.reason = reason
  }

  /// `file:line:column: reason`, leaving out what is unknown.
  public var description: String {
    var place = file ?? ""
    if let line { place += (place.isEmpty ? "line " : ":") + String(line) }
    if let column { place += ":" + String(column) }
    return place.isEmpty ? reason : "\(place): \(reason)"
  }
}
