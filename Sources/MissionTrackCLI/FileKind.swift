import Foundation

/// What a path names, from `stat(2)` (following symbolic links): for messages that say what
/// is wrong with a path, and for refusing to write over anything but a regular file.
enum FileKind: Equatable, CustomStringConvertible {
  case regular
  case directory
  case namedPipe
  case device
  case socket

  /// The kind of what `path` names, or nil when nothing is there (or it cannot be seen).
  init?(path: String) {
    guard let info = FileKind.status(path) else { return nil }
    switch info.st_mode & S_IFMT {
    case S_IFREG: self = .regular
    case S_IFDIR: self = .directory
    case S_IFIFO: self = .namedPipe
    case S_IFSOCK: self = .socket
    default: self = .device
    }
  }

  /// `a directory`, `a named pipe (FIFO)`, … for messages.
  var description: String {
    switch self {
    case .regular: "a regular file"
    case .directory: "a directory"
    case .namedPipe: "a named pipe (FIFO)"
    case .device: "a device"
    case .socket: "a socket"
    }
  }

  /// The device and inode of what `path` names (after symbolic links), or nil: two paths
  /// name one file exactly when these are equal.
  static func identity(of path: String) -> [UInt64]? {
    status(path).map { [UInt64($0.st_dev), UInt64($0.st_ino)] }
  }

  private static func status(_ path: String) -> stat? {
    var info = stat()
    return stat(path, &info) == 0 ? info : nil
  }
}
