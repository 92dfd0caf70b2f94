import Foundation

/// Where a command writes: JSON lines and tables to standard output, human text to standard
/// error. Tests create one that captures both.
///
/// Every byte goes out through `write(2)` in one place (`writeAll`), which retries after
/// `EINTR` and partial writes and turns any other failure (`EPIPE` from a closed pipe with
/// SIGPIPE ignored, `ENOSPC` from a full disk or `/dev/full`, `EBADF` from a closed
/// descriptor) into a recorded `WriteFailure` instead of a trap. After a failure on a stream
/// nothing more is written to it; `MissionTrackTool.run` turns the failure into exit status 1
/// and one line on standard error (when standard error still works).
///
/// Standard output is buffered (64 KiB blocks, or every line after `flushEveryLine()`);
/// standard error is written at once. `flush()` may be called from any thread, including
/// the task or dispatch handler that reacts to SIGINT/SIGTERM: it never allocates while
/// another writer holds the stream, it only waits for that writer to finish, so lines come
/// out whole and in order.
///
/// `@unchecked Sendable`: the buffers and failures are only touched while holding
/// `bufferLock`; the descriptors are only written while holding `writeLock` (taken before
/// `bufferLock` whenever both are needed, so the two cannot deadlock).
package final class Console: @unchecked Sendable {
  /// Why a stream could not be written: which one and the `errno` of `write(2)`.
  package struct WriteFailure: Sendable, Equatable {
    /// Whether it was standard output (else standard error).
    package var isStandardOutput: Bool
    /// The `errno` value `write(2)` reported.
    package var errorNumber: Int32

    /// `cannot write to standard output: No space left on device`.
    package var message: String {
      let stream = isStandardOutput ? "standard output" : "standard error"
      return "cannot write to \(stream): \(String(cString: strerror(errorNumber)))"
    }
  }

  private let bufferLock = NSLock()
  private let writeLock = NSLock()
  private let capturing: Bool
  private let outDescriptor: Int32
  private let errDescriptor: Int32
  private var outBuffer: [UInt8] = []
  private var errBuffer: [UInt8] = []
  private static let flushThreshold = 1 << 16
  private var lineBuffered = false
  private var outFailure: WriteFailure?
  private var errFailure: WriteFailure?

  /// A console on the process's standard output and standard error.
  package static func standard() -> Console {
    Console(capturing: false, output: STDOUT_FILENO, error: STDERR_FILENO)
  }

  /// A console that keeps what is written, for tests (`capturedOutput`, `capturedError`).
  package static func capture() -> Console { Console(capturing: true, output: -1, error: -1) }

  /// A console writing to two given descriptors (tests use it with `/dev/full` and pipes).
  static func writing(output: Int32, error: Int32) -> Console {
    Console(capturing: false, output: output, error: error)
  }

  private init(capturing: Bool, output: Int32, error: Int32) {
    self.capturing = capturing
    outDescriptor = output
    errDescriptor = error
  }

  /// Whether this console keeps its output in memory (tests) instead of writing it.
  package var isCapturing: Bool { capturing }

  /// Writes every standard-output line at once from now on (for live output that another
  /// program reads as it comes), instead of in 64 KiB blocks.
  package func flushEveryLine() { bufferLock.withLock { lineBuffered = true } }

  /// Whether standard error is a terminal (progress and live status are shown only then).
  package var errorIsTerminal: Bool { !capturing && isatty(errDescriptor) == 1 }

  /// The first failed write to standard output, if any (later output is dropped).
  package var outputFailure: WriteFailure? { bufferLock.withLock { outFailure } }

  /// The first failed write to standard error, if any (later messages are dropped).
  package var errorFailure: WriteFailure? { bufferLock.withLock { errFailure } }

  /// Whether a write to either stream failed: a long-running command may stop early, since
  /// nobody reads what it would print.
  package var hasFailed: Bool { bufferLock.withLock { outFailure != nil || errFailure != nil } }

  /// Writes `line` and a newline to standard output (buffered; see `flush`).
  package func out(_ line: String) {
    let due: Bool = bufferLock.withLock {
      guard outFailure == nil else { return false }
      outBuffer.append(contentsOf: line.utf8)
      outBuffer.append(0x0A)
      return !capturing && (lineBuffered || outBuffer.count >= Console.flushThreshold)
    }
    if due { flush() }
  }

  /// Writes `line` and a newline to standard error at once.
  package func err(_ line: String) { errRaw(line + "\n") }

  /// Writes `text` to standard error as is (for progress lines ending in `\r`).
  package func errRaw(_ text: String) {
    if capturing {
      bufferLock.withLock { errBuffer.append(contentsOf: text.utf8) }
      return
    }
    writeLock.withLock {
      guard bufferLock.withLock({ errFailure == nil }) else { return }
      if let number = Console.writeAll(Array(text.utf8), to: errDescriptor) {
        bufferLock.withLock {
          errFailure = WriteFailure(isStandardOutput: false, errorNumber: number)
        }
      }
    }
  }

  /// Writes buffered standard output now. Safe from any thread, and from the code that
  /// handles SIGINT/SIGTERM (a dispatch signal source or a task awaiting
  /// `TerminationSignal.wait()`): call it before the process exits so no line is lost.
  package func flush() {
    guard !capturing else { return }
    writeLock.lock()
    defer { writeLock.unlock() }
    flushLocked()
  }

  /// `flush()`, but gives up after `limit` when another thread holds the stream (blocked on
  /// a reader that does not read): for the last flush before the process dies of a signal.
  package func flush(waitingAtMost limit: Duration) {
    guard !capturing else { return }
    let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
    guard writeLock.lock(before: Date(timeIntervalSinceNow: seconds)) else { return }
    defer { writeLock.unlock() }
    flushLocked()
  }

  /// Writes the buffered output; the caller holds `writeLock`.
  private func flushLocked() {
    let pending: [UInt8] = bufferLock.withLock {
      defer { outBuffer.removeAll(keepingCapacity: true) }
      return outFailure == nil ? outBuffer : []
    }
    guard !pending.isEmpty else { return }
    if let number = Console.writeAll(pending, to: outDescriptor) {
      bufferLock.withLock { outFailure = WriteFailure(isStandardOutput: true, errorNumber: number) }
    }
  }

  /// Everything written to standard output, when capturing.
  package var capturedOutput: String {
    bufferLock.withLock { String(decoding: outBuffer, as: UTF8.self) }
  }

  /// Everything written to standard error, when capturing.
  package var capturedError: String {
    bufferLock.withLock { String(decoding: errBuffer, as: UTF8.self) }
  }

  /// Writes every byte of `bytes` to `descriptor`: retries after `EINTR` and continues after
  /// a partial write. The one place the console calls `write(2)`.
  /// - Returns: nil when everything was written, else the `errno` of the failure (`EPIPE`,
  ///   `ENOSPC`, …).
  package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
    bytes.withUnsafeBytes { buffer -> Int32? in
      guard let base = buffer.baseAddress else { return nil }
      var offset = 0
      while offset < buffer.count {
        let written = write(descriptor, base + offset, buffer.count - offset)
        if written > 0 {
          offset += written
        } else if written < 0 && errno == EINTR {
          continue
        } else {
          // 0 bytes for a non-empty write makes no progress: report it as EIO.
          return written < 0 ? errno : EIO
        }
      }
      return nil
    }
  }
}
