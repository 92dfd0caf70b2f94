import CommandLineSupport
import Foundation

/// Where a command's document goes: standard output, or a regular file replaced atomically.
enum OutputFile {
  /// Writes `text` to `path`, or to standard output through `console` when `path` is nil
  /// or `-`.
  ///
  /// A file is written to a temporary file in the same directory and renamed over the old
  /// one, so a reader sees the old or the new document, never half of one. What `path`
  /// names is checked first (through symbolic links, which are kept and their target
  /// replaced): anything but a regular file (a directory, a named pipe, a device) is
  /// refused, and so is the database given by `--db` (or its WAL side files), compared by
  /// device and inode. An existing file keeps its permission bits; a new one gets
  /// 0666 less the umask. When the directory cannot take a temporary file but the file is
  /// writable, the file is rewritten in place.
  /// - Parameters:
  ///   - database: The `--db` path, never to be overwritten.
  /// - Throws: `CLIError.failure` naming the path when it is refused or cannot be written.
  static func write(
    _ text: String, toPath path: String?, console: Console, database: String? = nil
  ) throws(CLIError) {
    guard let path, path != "-" else {
      console.out(text.hasSuffix("\n") ? String(text.dropLast()) : text)
      return
    }
    let shown = path.terminalSafe
    let kind = FileKind(path: path)
    if let kind, kind != .regular {
      throw .failure("refusing to write -o \(shown): it is \(kind), not a regular file")
    }
    if let database, database != ":memory:", let target = FileKind.identity(of: path) {
      for suffix in ["", "-wal", "-shm", "-journal"]
      where FileKind.identity(of: database + suffix) == target {
        throw .failure("refusing to write -o \(shown): it is the database (--db)")
      }
    }
    // Replace the file a symbolic link points to, not the link.
    let target = kind == nil ? path : (realPath(path) ?? path)
    var mode = mode_t(0o666) & ~currentUmask()
    if kind != nil {
      var info = stat()
      if stat(target, &info) == 0 { mode = info.st_mode & 0o7777 }
    }
    let bytes = Array(text.utf8)
    let url = URL(fileURLWithPath: target)
    let directory = url.deletingLastPathComponent().path
    guard FileKind(path: directory) == .directory else {
      throw .failure("cannot write \(shown): no directory \(directory.terminalSafe)")
    }
    var template = Array((directory + "/." + url.lastPathComponent + ".XXXXXX").utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { buffer -> Int32 in
      guard let base = buffer.baseAddress else { return -1 }
      return mkstemp(base)
    }
    guard descriptor >= 0 else {
      let reason = errno
      if kind != nil, access(target, W_OK) == 0 {
        return try writeInPlace(bytes, to: target, shown: shown)
      }
      throw .failure("cannot write \(shown): \(String(cString: strerror(reason)))")
    }
    let temporary = String(
      decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    var failure = Console.writeAll(bytes, to: descriptor)
    if failure == nil, fchmod(descriptor, mode) != 0 || fsync(descriptor) != 0 { failure = errno }
    if close(descriptor) != 0, failure == nil { failure = errno }
    if failure == nil, rename(temporary, target) != 0 { failure = errno }
    if let failure {
      unlink(temporary)
      throw .failure("cannot write \(shown): \(String(cString: strerror(failure)))")
    }
  }

  /// Truncates and rewrites `target` (mode and owner stay): the fallback when its directory
  /// is not writable.
  private static func writeInPlace(_ bytes: [UInt8], to target: String, shown: String)
    throws(CLIError)
  {
    let descriptor = open(target, O_WRONLY | O_TRUNC | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .failure("cannot write \(shown): \(String(cString: strerror(errno)))")
    }
    var failure = Console.writeAll(bytes, to: descriptor)
    if close(descriptor) != 0, failure == nil { failure = errno }
    if let failure {
      throw .failure("cannot write \(shown): \(String(cString: strerror(failure)))")
    }
  }

  /// The absolute path `path` resolves to, with every symbolic link followed.
  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// The process's umask (read by setting and restoring it).
  private static func currentUmask() -> mode_t {
    let mask = umask(0o022)
    umask(mask)
    return mask
  }
}
