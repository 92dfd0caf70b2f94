import Foundation

/// Where a command's document goes: standard output, or a file replaced atomically.
enum OutputFile {
  /// Writes `text` to `path` atomically (a temporary file renamed over it), or to standard
  /// output through `console` when `path` is nil.
  /// - Throws: `CLIError.failure` naming the path when it cannot be written.
  static func write(_ text: String, toPath path: String?, console: Console) throws(CLIError) {
    guard let path else {
      console.out(text.hasSuffix("\n") ? String(text.dropLast()) : text)
      return
    }
    do {
      try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic)
    } catch {
      throw .failure("cannot write '\(path)': \(error.localizedDescription)")
    }
  }
}
