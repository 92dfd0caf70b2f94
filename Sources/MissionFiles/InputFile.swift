import Foundation

/// Reads a whole input (a mission file, standard input) with POSIX calls, so a failure says
/// what is wrong with the path ("is a directory", "is a device") instead of a Foundation
/// error domain and code.
package enum InputFile {
  /// The bytes of the file at `path`: a regular file, or a named pipe or other stream read
  /// to its end. A directory or a device (such as `/dev/null`) is refused.
  /// - Throws: `MissionFileError.unreadableFile` with a reason for people.
  package static func bytes(atPath path: String) throws(MissionFileError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .unreadableFile(path: path, reason: reason(errno))
    }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else {
      throw .unreadableFile(path: path, reason: reason(errno))
    }
    switch info.st_mode & S_IFMT {
    case S_IFDIR:
      throw .unreadableFile(path: path, reason: "it is a directory, not a file")
    case S_IFCHR, S_IFBLK:
      throw .unreadableFile(
        path: path, reason: "it is a device, not a file (use - to read standard input)")
    default:
      return try bytes(descriptor: descriptor, name: path)
    }
  }

  /// Everything readable from `descriptor` until end of file (standard input is 0).
  /// - Throws: `MissionFileError.unreadableFile` naming `name`.
  package static func bytes(descriptor: Int32, name: String) throws(MissionFileError) -> [UInt8] {
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count > 0 {
        result.append(contentsOf: chunk[..<count])
      } else if count == 0 {
        return result
      } else if errno != EINTR {
        throw .unreadableFile(path: name, reason: reason(errno))
      }
    }
  }

  /// A reason for people from an `errno` value.
  private static func reason(_ number: Int32) -> String {
    switch number {
    case ENOENT: "no such file"
    case EACCES: "permission denied"
    case EISDIR: "it is a directory, not a file"
    default: String(cString: strerror(number)).lowercased()
    }
  }
}
