import MissionFiles

extension StoreError {
  /// The store's error for a mission file that cannot be read or holds a bad record: the
  /// case of the same name.
  init(_ error: MissionFileError) {
    switch error {
    case .invalidMissionFile(let file, let line, let field, let value, let reason):
      self = .invalidMissionFile(
        file: file, line: line, field: field, value: value, reason: reason)
    case .unreadableFile(let path, let reason):
      self = .unreadableFile(path: path, reason: reason)
    case .interrupted(let file):
      // The error an interrupted statement of the import gives, so callers see one.
      self = .interrupted(message: "interrupted while reading \(file)", sql: "")
    }
  }

  /// The result of `read`, a mission file read, with its failure as a `StoreError`.
  static func reading<T>(_ read: () throws(MissionFileError) -> T) throws(StoreError) -> T {
    do {
      return try read()
    } catch {
      throw StoreError(error)
    }
  }
}
