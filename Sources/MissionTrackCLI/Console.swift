import Foundation

/// Where a command writes: JSON lines and tables to standard output, human text to standard
/// error. Tests create one that captures both.
///
/// `@unchecked Sendable`: every access to the buffers goes through `lock`.
public final class Console: @unchecked Sendable {
  private let lock = NSLock()
  private let capturing: Bool
  private var outBuffer = ""
  private var errBuffer = ""
  private static let flushThreshold = 1 << 16
  private var lineBuffered = false

  /// A console on the process's standard output and standard error.
  public static func standard() -> Console { Console(capturing: false) }

  /// A console that keeps what is written, for tests (`capturedOutput`, `capturedError`).
  public static func capture() -> Console { Console(capturing: true) }

  private init(capturing: Bool) { self.capturing = capturing }

  /// Writes every standard-output line at once from now on (for live output that another
  /// program reads as it comes), instead of in 64 KiB blocks.
  public func flushEveryLine() { lock.withLock { lineBuffered = true } }

  /// Whether standard error is a terminal (progress and live status are shown only then).
  public var errorIsTerminal: Bool { !capturing && isatty(2) == 1 }

  /// Writes `line` and a newline to standard output (buffered; see `flush`).
  public func out(_ line: String) {
    lock.withLock {
      outBuffer += line
      outBuffer += "\n"
      if !capturing && (lineBuffered || outBuffer.utf8.count >= Console.flushThreshold) {
        flushOutLocked()
      }
    }
  }

  /// Writes `line` and a newline to standard error at once.
  public func err(_ line: String) {
    lock.withLock {
      errBuffer += line
      errBuffer += "\n"
      if !capturing { flushErrLocked() }
    }
  }

  /// Writes `text` to standard error as is (for progress lines ending in `\r`).
  public func errRaw(_ text: String) {
    lock.withLock {
      errBuffer += text
      if !capturing { flushErrLocked() }
    }
  }

  /// Writes buffered standard output.
  public func flush() {
    lock.withLock { if !capturing { flushOutLocked() } }
  }

  /// Everything written to standard output, when capturing.
  public var capturedOutput: String { lock.withLock { outBuffer } }

  /// Everything written to standard error, when capturing.
  public var capturedError: String { lock.withLock { errBuffer } }

  private func flushOutLocked() {
    FileHandle.standardOutput.write(Data(outBuffer.utf8))
    outBuffer = ""
  }

  private func flushErrLocked() {
    FileHandle.standardError.write(Data(errBuffer.utf8))
    errBuffer = ""
  }
}
