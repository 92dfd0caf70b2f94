import Foundation
import Testing

@testable import CommandLineSupport
@testable import MissionTrackCLI

/// The console's writes through `write(2)`: failures are recorded, never a trap.
@Suite(.serialized) struct ConsoleTests {
  @Test func aFullDiskIsRecordedAndLaterOutputDropped() throws {
    let full = open("/dev/full", O_WRONLY)
    try #require(full >= 0)
    defer { close(full) }
    let console = Console.writing(output: full, error: full)
    console.out("one")
    console.flush()
    let failure = try #require(console.outputFailure)
    #expect(failure == Console.WriteFailure(isStandardOutput: true, errorNumber: ENOSPC))
    #expect(failure.message == "cannot write to standard output: No space left on device")
    console.err("two")
    #expect(console.errorFailure?.errorNumber == ENOSPC)
    #expect(console.hasFailed)
  }

  @Test func aClosedPipeWithSIGPIPEIgnoredIsEPIPE() throws {
    let previous = signal(SIGPIPE, SIG_IGN)
    defer { signal(SIGPIPE, previous) }
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    close(ends[0])
    defer { close(ends[1]) }
    let console = Console.writing(output: ends[1], error: ends[1])
    console.out("lost")
    console.flush()
    #expect(console.outputFailure?.errorNumber == EPIPE)
  }

  @Test func everyByteArrivesAcrossPartialWrites() throws {
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    defer { close(ends[0]) }
    let console = Console.writing(output: ends[1], error: ends[1])
    // More than a pipe holds (64 KiB): the writer blocks and continues as the reader reads.
    let line = String(repeating: "x", count: 999)
    let readEnd = ends[0]
    let reader = Thread.detachNewThreadWithResult {
      var total = 0
      var buffer = [UInt8](repeating: 0, count: 4096)
      while true {
        let n = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
        if n <= 0 { return total }
        total += n
      }
    }
    for _ in 0..<300 { console.out(line) }
    console.flush()
    close(ends[1])
    #expect(reader.value == 300 * 1000)
    #expect(console.outputFailure == nil)
  }
}

extension Thread {
  /// Runs `body` on a new thread; `value` waits for its result.
  fileprivate static func detachNewThreadWithResult(_ body: @escaping @Sendable () -> Int)
    -> ThreadResult
  {
    let result = ThreadResult()
    Thread.detachNewThread { result.set(body()) }
    return result
  }
}

/// A value produced by another thread, waited for with a semaphore.
private final class ThreadResult: @unchecked Sendable {
  // `@unchecked Sendable`: `stored` is written once before `done` is signalled and read
  // only after waiting for it.
  private var stored = 0
  private let done = DispatchSemaphore(value: 0)
  func set(_ value: Int) {
    stored = value
    done.signal()
  }
  var value: Int {
    done.wait()
    return stored
  }
}
