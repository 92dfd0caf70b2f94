import Foundation

/// A `missiontrack serve` started from the built executable for a test, on a free loopback
/// port (`--listen 127.0.0.1:0`), with its standard error in a file.
///
/// It stops by itself: `stop()` sends SIGTERM (and SIGKILL after 5 s), and releasing the
/// object kills a server that is still running, so a failing test leaves nothing behind.
public final class ServeProcess: @unchecked Sendable {
  public struct Failure: Error, CustomStringConvertible {
    public var description: String
    public init(description: String) { self.description = description }
  }

  /// The package root, found from this file (Tests/ServiceTestSupport/ServeProcess.swift).
  public static let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The built `missiontrack`, or nil when it has not been built.
  public static let executable: String? = {
    let build = packageRoot.appendingPathComponent(".build")
    let candidates = [
      Bundle.main.bundleURL.appendingPathComponent("missiontrack"),
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("missiontrack"),
      build.appendingPathComponent("debug/missiontrack"),
      build.appendingPathComponent("release/missiontrack"),
    ]
    return candidates.map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
  }()

  /// Whether the executable and its tests can run here.
  public static var isAvailable: Bool { executable != nil }

  public let process: Process
  /// Where its standard error goes.
  public let errorPath: String
  /// `http://127.0.0.1:PORT`, from its `serving on` line.
  public private(set) var url = ""
  /// The port it listens on.
  public private(set) var port = 0

  /// Starts `missiontrack serve ARGUMENTS` in `directory` (add `--db` yourself) and waits
  /// up to `timeout` seconds for `serving on`; with `listen` nil no `--listen` is given.
  /// - Throws: `Failure` with its standard error when it exits or does not get ready.
  public init(
    _ arguments: [String], in directory: URL, tag: String = "serve",
    environment: [String: String]? = nil, listen: String? = "127.0.0.1:0",
    timeout: Double = 20
  ) throws {
    guard let executable = Self.executable else { throw Failure(description: "not built") }
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = ["serve"] + (listen.map { ["--listen", $0] } ?? []) + arguments
    process.currentDirectoryURL = directory
    if let environment {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    errorPath = directory.appendingPathComponent("\(tag).err").path
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    process.standardOutput = FileHandle.nullDevice
    try process.runWithDefaultSignalMask()
    OrphanGuard.watch(process)
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      let text = errorText
      if let range = text.range(of: "serving on ") {
        let line = text[range.upperBound...].prefix { !$0.isNewline }
        url = String(line)
        port = Int(line.split(separator: ":").last ?? "") ?? 0
        return
      }
      if !process.isRunning {
        throw Failure(description: "serve exited \(process.terminationStatus): \(text)")
      }
      usleep(20_000)
    }
    process.terminate()
    throw Failure(description: "serve did not get ready in \(timeout) s: \(errorText)")
  }

  deinit {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  /// Its standard error so far.
  public var errorText: String {
    (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
  }

  /// Sends SIGTERM and waits for the exit (SIGKILL after `timeout`); returns the exit status
  /// and how long the stop took.
  @discardableResult
  public func stop(timeout: Double = 5) -> (status: Int32, seconds: Double) {
    let start = Date()
    guard process.isRunning else { return (process.terminationStatus, 0) }
    kill(process.processIdentifier, SIGTERM)
    while process.isRunning && Date().timeIntervalSince(start) < timeout { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return (process.terminationStatus, Date().timeIntervalSince(start))
  }

  /// Kills it with SIGKILL (a crash) and waits.
  public func crash() {
    guard process.isRunning else { return }
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Runs the built `missiontrack ARGUMENTS` (or another `executable`) to its end (killed
  /// after `timeout` seconds, so a command that should have failed but serves cannot hang a
  /// test); returns status, stdout, stderr.
  public static func run(
    _ arguments: [String], in directory: URL, executable: String? = nil, timeout: Double = 120
  ) throws -> (status: Int32, out: String, err: String) {
    guard let executable = executable ?? Self.executable else {
      throw Failure(description: "not built")
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.currentDirectoryURL = directory
    let out = directory.appendingPathComponent("run-\(UUID().uuidString).out")
    let err = directory.appendingPathComponent("run-\(UUID().uuidString).err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    process.standardOutput = try FileHandle(forWritingTo: out)
    process.standardError = try FileHandle(forWritingTo: err)
    try process.runWithDefaultSignalMask()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    defer {
      try? FileManager.default.removeItem(at: out)
      try? FileManager.default.removeItem(at: err)
    }
    return (
      process.terminationStatus, (try? String(contentsOf: out, encoding: .utf8)) ?? "",
      (try? String(contentsOf: err, encoding: .utf8)) ?? ""
    )
  }
}
