import Foundation
import ServiceTestSupport

/// The `missiontrack` executable that `swift build` left next to the tests, for end-to-end
/// tests that run it as a separate process.
enum BuiltTool {
  /// The path of the built executable, or nil when it has not been built.
  static let path: String? = ServeProcess.executable

  /// Whether the executable exists (tests that need it are skipped otherwise).
  static var isBuilt: Bool { path != nil }

  /// Starts the tool with `arguments`, standard output and error into files in `directory`.
  static func start(_ arguments: [String], in directory: URL, tag: String) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path!)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    _ = FileManager.default.createFile(
      atPath: directory.appendingPathComponent("\(tag).out").path, contents: nil)
    _ = FileManager.default.createFile(
      atPath: directory.appendingPathComponent("\(tag).err").path, contents: nil)
    process.standardOutput = try FileHandle(
      forWritingTo: directory.appendingPathComponent("\(tag).out"))
    process.standardError = try FileHandle(
      forWritingTo: directory.appendingPathComponent("\(tag).err"))
    try process.run()
    OrphanGuard.watch(process)
    return process
  }
}
