/// Why a mission file could not be read, each case with the context to act on it.
///
/// `MissionStore` reports these as the `StoreError` cases of the same names (an import is
/// all or nothing: nothing was stored).
import TextRules

package enum MissionFileError: Error, Sendable, Equatable, CustomStringConvertible {
  /// A mission file has a bad record: the file, the 1-based line where the bad value (or
  /// record) starts, the field and value when known, and why.
  case invalidMissionFile(file: String, line: Int, field: String?, value: String?, reason: String)
  /// A file could not be read at all.
  case unreadableFile(path: String, reason: String)
  /// The caller's interruption check said stop before `file` was read to its end (a
  /// stopping server).
  case interrupted(file: String)

  /// One line for people: the file and line, the field and value, and why. Line breaks and
  /// other control characters inside values taken from a file are shown escaped.
  package var description: String {
    switch self {
    case .invalidMissionFile(let file, let line, let field, let value, let reason):
      "\(oneLine(file)):\(line): "
        + (field.map {
          "field '\(oneLine($0))'" + (value.map { " = '\(oneLine($0, limit: 200))'" } ?? "")
            + ": "
        } ?? "")
        + oneLine(reason) + " (nothing imported)"
    case .unreadableFile(let path, let reason): "cannot read \(oneLine(path)): \(oneLine(reason))"
    case .interrupted(let file): "reading \(oneLine(file)) was interrupted (nothing imported)"
    }
  }
}
