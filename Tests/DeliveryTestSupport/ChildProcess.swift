import Foundation
import ServiceTestSupport

/// A program started for a test with its output in files; killed when released, so a
/// failing test leaves nothing behind.
public final class ChildProcess: @unchecked Sendable {
  public let process = Process()
  /// Where its standard output and standard error go.
  public let outputPath: String
  public let errorPath: String

  /// Starts `executable ARGUMENTS` with its output in `directory` under `tag`, with
  /// `environment` added to this process's.
  public init(
    environment: [String: String] = [:], _ executable: String, _ arguments: [String],
    in directory: URL, tag: String
  ) throws {
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    outputPath = directory.appendingPathComponent("\(tag).out").path
    errorPath = directory.appendingPathComponent("\(tag).err").path
    _ = FileManager.default.createFile(atPath: outputPath, contents: nil)
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outputPath))
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    try process.runWithDefaultSignalMask()
    OrphanGuard.watch(process)
  }

  deinit { stop() }

  /// Its standard output so far.
  public var output: String { (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "" }
  /// Its standard error so far.
  public var errors: String { (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "" }

  /// Waits up to `timeout` seconds until its standard output has a line `check` accepts.
  public func waitForOutput(timeout: Double, _ check: (String) -> Bool) throws -> String {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      // Whole lines only: a line still being written ("port " of "port 4242") is not one.
      let lines = output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
      if let line = lines.map(String.init).first(where: check) { return line }
      guard process.isRunning else {
        throw TestFailure("\(process.executableURL?.path ?? "") exited: \(errors)")
      }
      usleep(20_000)
    }
    throw TestFailure("\(process.executableURL?.path ?? "") gave no such line: \(errors)")
  }

  /// Waits up to `timeout` seconds for it to exit by itself; returns whether it did.
  @discardableResult
  public func waitForExit(timeout: Double) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    return !process.isRunning
  }

  /// SIGTERM, SIGKILL after 5 s; waits for the exit.
  public func stop() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGTERM)
    let deadline = Date().addingTimeInterval(5)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }
}
