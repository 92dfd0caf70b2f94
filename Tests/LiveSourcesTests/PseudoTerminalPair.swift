import Foundation
import ServiceTestSupport

/// Two connected pseudo-terminals from `socat -d -d pty,raw,echo=0 pty,raw,echo=0`: bytes
/// written to `writerPath` come out of `readerPath`, like a GPS receiver on a serial line.
/// `kill()` makes both device nodes vanish, like a USB receiver being unplugged.
///
/// Call `stop()` in a `defer`; the pair is also stopped when released.
final class PseudoTerminalPair {
  struct HarnessError: Error, CustomStringConvertible {
    var description: String
  }

  static let socatPath = "/usr/bin/socat"

  /// Whether socat is installed (`.enabled(if:)` for the pty tests).
  static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: socatPath) }

  /// The end the test writes NMEA into.
  let writerPath: String
  /// The end the source reads.
  let readerPath: String
  private let process: Process
  private let log: URL

  /// Starts socat and waits (up to 10 s) until both pseudo-terminals exist and socat relays.
  init() throws {
    log = FileManager.default.temporaryDirectory.appendingPathComponent(
      "socat-pty-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let handle = try FileHandle(forWritingTo: log)
    defer { try? handle.close() }
    process = Process()
    process.executableURL = URL(fileURLWithPath: PseudoTerminalPair.socatPath)
    process.arguments = ["-d", "-d", "pty,raw,echo=0", "pty,raw,echo=0"]
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    process.standardError = handle
    try process.runWithDefaultSignalMask()

    // socat logs "N PTY is /dev/pts/N" for each end, then "starting data transfer loop".
    let deadline = Date().addingTimeInterval(10)
    var paths: [String] = []
    var relaying = false
    while Date() < deadline {
      let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      paths = text.split(separator: "\n").compactMap { line in
        line.range(of: "PTY is ").map { String(line[$0.upperBound...]) }
      }
      relaying = text.contains("starting data transfer loop")
      if paths.count == 2, relaying,
        paths.allSatisfy({ FileManager.default.fileExists(atPath: $0) })
      {
        break
      }
      if !process.isRunning { break }
      usleep(10_000)
    }
    guard paths.count == 2, relaying else {
      let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
      process.waitUntilExit()
      try? FileManager.default.removeItem(at: log)
      throw HarnessError(description: "socat did not create a pty pair within 10 s: \(text)")
    }
    writerPath = paths[0]
    readerPath = paths[1]
  }

  deinit {
    stop()
    try? FileManager.default.removeItem(at: log)
  }

  /// Kills socat at once (SIGKILL) and waits for it: both device nodes disappear.
  func kill() {
    if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
  }

  /// Stops socat: SIGTERM, then SIGKILL after 2 s.
  func stop() {
    guard process.isRunning else { return }
    process.terminate()
    let deadline = Date().addingTimeInterval(2)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    kill()
  }

  /// Opens the writer end (raw, so nothing is translated on the way).
  func openWriter() throws -> FileHandle {
    let fd = open(writerPath, O_WRONLY | O_NOCTTY | O_CLOEXEC)
    guard fd >= 0 else {
      throw HarnessError(
        description: "cannot open \(writerPath): \(String(cString: strerror(errno)))")
    }
    return FileHandle(fileDescriptor: fd, closeOnDealloc: true)
  }
}

/// Whether this process has a descriptor open on `path` (a look through `/proc/self/fd`).
func processHasOpenDescriptor(on path: String) -> Bool {
  let directory = "/proc/self/fd"
  guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
    return false
  }
  for name in names {
    if let target = try? FileManager.default.destinationOfSymbolicLink(
      atPath: directory + "/" + name), target == path
    {
      return true
    }
  }
  return false
}
