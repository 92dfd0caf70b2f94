import Foundation
import MissionTracking
import Testing
import TextRules
import TraceFormats

@testable import LiveSources

/// The raw NMEA source over real pseudo-terminals (socat), named pipes and files.
@Suite("Raw NMEA device source", .serialized)
struct NMEADeviceSourceTests {
  // MARK: Helpers

  /// A trace of the project's own, as lines without comments.
  static func traceLines(_ relativePath: String) throws -> [String] {
    let url = TestData.packageRoot.appendingPathComponent(relativePath)
    return try String(contentsOf: url, encoding: .utf8)
      .split(whereSeparator: \.isNewline)
      .map(String.init)
      .filter { !$0.hasPrefix("#") }
  }

  /// Consecutive sentences with the same time field form one burst, as a receiver sends them.
  static func bursts(_ lines: [String]) -> [String] {
    var result: [String] = []
    var current = ""
    var currentTime: Substring?
    for line in lines {
      let time = line.split(separator: ",", omittingEmptySubsequences: false).dropFirst().first
      if currentTime != nil, time != currentTime {
        result.append(current)
        current = ""
      }
      currentTime = time
      current += line + "\r\n"
    }
    if !current.isEmpty { result.append(current) }
    return result
  }

  /// What the trace reader decodes from `text` (written to a temporary file).
  static func readerFixes(_ text: String) throws -> (fixes: [Fix], statistics: TraceStatistics) {
    let url = temporaryPath("expected.nmea")
    defer { try? FileManager.default.removeItem(atPath: url) }
    try Data(text.utf8).write(to: URL(fileURLWithPath: url))
    let reader = try TraceReader(path: url)
    var fixes: [Fix] = []
    let statistics = try reader.forEachBatch { fixes += $0 }
    return (fixes, statistics)
  }

  static func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "nmea-device-\(UUID().uuidString)-\(name)"
    ).path
  }

  /// `body` (with its `$`) followed by `*HH`, its checksum.
  static func sentence(_ body: String) -> String {
    TestData.sentence(String(body.dropFirst())).trimmingCharacters(in: .newlines)
  }

  /// A fast retry policy for the tests.
  static let quickRetry = try! RetryPolicy(
    initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200))

  /// Writes `bursts` into `handle`, one burst per write, with seeded pauses of 20–80 ms
  /// (about 25–100 sentences a second) and, one time in ten, 300 ms — longer than the epoch
  /// timeout, so the quiet-line release happens mid-stream too.
  static func writePaced(_ bursts: [String], to handle: FileHandle, seed: UInt64) async throws {
    // On a thread of its own: while other suites' tests hold every thread of the test run's
    // pool, a task's sleep can last longer than a silence timeout and fake a silence.
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
      Thread {
        var random = SplitMix64(seed: seed)
        do {
          for burst in bursts {
            try handle.write(contentsOf: Data(burst.utf8))
            let pause = random.next() % 10 == 0 ? 300 : 20 + Int(random.next() % 61)
            usleep(UInt32(pause * 1000))
          }
          done.resume()
        } catch {
          done.resume(throwing: error)
        }
      }.start()
    }
  }

  // MARK: Pseudo-terminals

  @Test(
    "Fixes from a pseudo-terminal at 9600 baud equal the trace reader's, in order",
    .enabled(if: PseudoTerminalPair.isAvailable, "socat is not installed"))
  func ptyFixesEqualTraceReader() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.stop() }
    let lines =
      try Self.traceLines("Traces/gpsd/short.nmea")
      + Self.traceLines("Traces/demo/walk.nmea").prefix(40)
    let expected = try Self.readerFixes(lines.map { $0 + "\r\n" }.joined())
    #expect(expected.fixes.count == 60)

    let source = try NMEADeviceSource(path: pair.readerPath, baud: 9600)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    #expect(recorder.statuses.first?.detail == "\(pair.readerPath) at 9600 baud")

    let writer = try pair.openWriter()
    try await Self.writePaced(Self.bursts(lines), to: writer, seed: 7)
    // The last epoch comes out after the line goes quiet; no end of input on a tty.
    let complete = await recorder.wait { $0.fixes.count >= expected.fixes.count }
    #expect(complete, "got \(recorder.fixes.count) of \(expected.fixes.count) fixes")
    #expect(recorder.fixes == expected.fixes)
    // The three no-fix epochs at the start of short.nmea are one episode, and nothing comes
    // after it. (A suite paused before the writer starts may first see the quiet line as
    // silent, then connected again: the line was quiet. And a loaded machine may look only
    // after the line, quiet since the last epoch, was reported silent: it was.)
    var kinds = recorder.statusKinds
    if kinds.last == .silent { kinds.removeLast() }
    #expect(kinds.first == .connected && kinds.last == .noFix, "\(kinds)")
    #expect(kinds.filter { $0 == .noFix }.count == 1, "\(kinds)")
    #expect(kinds.filter { $0 == .silent }.count == kinds.filter { $0 == .connected }.count - 1)
    let counters = source.counters
    #expect(counters.statistics.recordsRead == expected.statistics.recordsRead)
    #expect(counters.statistics.skipped == expected.statistics.skipped)
    #expect(counters.fixesDelivered == expected.fixes.count)
    #expect(counters.staleFixesDropped == 0)
    #expect(counters.noFixEpisodes == 1)
    #expect(counters.quietReleases > 0)
    #expect(recorder.error == nil)
  }

  @Test(
    "The terminal is put into raw mode at the requested baud rate",
    .enabled(if: PseudoTerminalPair.isAvailable, "socat is not installed"))
  func terminalIsConfigured() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.stop() }
    // Start from a cooked terminal at another speed so every setting has to change.
    let probe = open(pair.readerPath, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
    try #require(probe >= 0)
    defer { close(probe) }
    var settings = termios()
    try #require(tcgetattr(probe, &settings) == 0)
    settings.c_lflag |= tcflag_t(ICANON | ECHO)
    cfsetispeed(&settings, speed_t(B38400))
    cfsetospeed(&settings, speed_t(B38400))
    try #require(tcsetattr(probe, TCSANOW, &settings) == 0)

    let source = try NMEADeviceSource(path: pair.readerPath, baud: 115_200)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    #expect(recorder.statuses.first?.detail == "\(pair.readerPath) at 115200 baud")

    var applied = termios()
    try #require(tcgetattr(probe, &applied) == 0)
    #expect(cfgetispeed(&applied) == speed_t(B115200))
    #expect(cfgetospeed(&applied) == speed_t(B115200))
    #expect(applied.c_lflag & tcflag_t(ICANON | ECHO | ISIG) == 0)
    #expect(applied.c_cflag & tcflag_t(CLOCAL | CREAD) == tcflag_t(CLOCAL | CREAD))
    #expect(applied.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
  }

  @Test(
    "Stopping the iteration closes the device promptly",
    .enabled(if: PseudoTerminalPair.isAvailable, "socat is not installed"))
  func stopClosesTheDevice() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.stop() }
    #expect(!processHasOpenDescriptor(on: pair.readerPath))
    let source = try NMEADeviceSource(path: pair.readerPath, baud: 4800)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    #expect(processHasOpenDescriptor(on: pair.readerPath))

    let clock = ContinuousClock()
    let cancelledAt = clock.now
    task.cancel()
    // The reader waits in poll() with a wake-up pipe: it closes the device at once. The
    // generous bound only guards against a reader that never notices.
    let closed = await eventually(upTo: .seconds(60)) {
      !processHasOpenDescriptor(on: pair.readerPath)
    }
    let elapsed = cancelledAt.duration(to: clock.now)
    #expect(closed, "the device is still open \(elapsed) after cancelling")
    print("nmea-device stop latency: \(elapsed)")
    #expect(await recorder.wait { $0.ended })
    #expect(recorder.error == nil)
  }

  @Test(
    "A vanishing device reports disconnected, and a replugged one resumes after a gap",
    .enabled(if: PseudoTerminalPair.isAvailable, "socat is not installed"))
  func deviceVanishesAndReturns() async throws {
    // A stable name in front of the changing pts node, like /dev/serial/by-id/… for USB.
    let link = Self.temporaryPath("gps0")
    defer { try? FileManager.default.removeItem(atPath: link) }
    let first = try PseudoTerminalPair()
    defer { first.stop() }
    try FileManager.default.createSymbolicLink(
      atPath: link, withDestinationPath: first.readerPath)

    let lines = try Self.traceLines("Traces/demo/walk.nmea").prefix(60)
    let bursts = Self.bursts(Array(lines))
    let expected = try Self.readerFixes(lines.map { $0 + "\r\n" }.joined()).fixes
    let half = bursts.count / 2

    let source = try NMEADeviceSource(path: link, baud: 9600, retryPolicy: Self.quickRetry)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    let firstWriter = try first.openWriter()
    try await Self.writePaced(Array(bursts[..<half]), to: firstWriter, seed: 11)
    #expect(await recorder.wait { $0.fixes.count >= half })

    // Unplugged: the device node and its by-id link disappear.
    first.kill()
    try FileManager.default.removeItem(atPath: link)
    #expect(
      await recorder.wait {
        $0.statusKinds.contains(.disconnected) && $0.statusKinds.contains(.reconnecting)
      })
    let lost = recorder.statuses.first { $0.kind == .disconnected }
    #expect(lost?.detail.hasPrefix("lost \(link):") == true, "\(String(describing: lost))")

    let second = try PseudoTerminalPair()
    defer { second.stop() }
    let replaced = Self.temporaryPath("gps0.new")
    try FileManager.default.createSymbolicLink(
      atPath: replaced, withDestinationPath: second.readerPath)
    #expect(rename(replaced, link) == 0)
    #expect(
      await recorder.wait { $0.statusKinds.filter { $0 == .connected }.count == 2 })
    let secondWriter = try second.openWriter()
    try await Self.writePaced(Array(bursts[half...]), to: secondWriter, seed: 12)
    let complete = await recorder.wait { $0.fixes.count >= expected.count }
    #expect(complete, "got \(recorder.fixes.count) of \(expected.count) fixes")
    #expect(recorder.fixes == expected)

    // connected, disconnected, reconnecting (one or more), connected, gap.
    let kinds = recorder.statusKinds.filter { $0 != .reconnecting }
    #expect(kinds == [.connected, .disconnected, .connected, .gap])
    let counters = source.counters
    #expect(counters.connections == 2)
    #expect(counters.reconnects == 1)
    #expect(counters.failedAttempts >= 0)
    // The gap comes right before the first fix of the second device.
    let gapIndex = try #require(
      recorder.reports.firstIndex {
        if case .status(let status) = $0 { status.kind == .gap } else { false }
      })
    #expect(recorder.reports[gapIndex + 1] == .fix(expected[half]))
  }

  @Test(
    "A lone epoch is released once the line goes quiet, without waiting for the next",
    .enabled(if: PseudoTerminalPair.isAvailable, "socat is not installed"))
  func loneEpochIsReleasedWhenQuiet() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.stop() }
    let lines = try Self.traceLines("Traces/demo/walk.nmea").prefix(10)
    let bursts = Self.bursts(Array(lines))
    let expected = try Self.readerFixes(lines.map { $0 + "\r\n" }.joined()).fixes
    let source = try NMEADeviceSource(path: pair.readerPath, baud: 9600)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    let writer = try pair.openWriter()
    let clock = ContinuousClock()
    var latencies: [Duration] = []
    for (index, burst) in bursts.enumerated() {
      let written = clock.now
      try writer.write(contentsOf: Data(burst.utf8))
      // Nothing more is written until this epoch's fix is out: only the quiet-line release
      // can deliver it.
      let delivered = await recorder.wait { $0.fixes.count > index }
      #expect(delivered, "epoch \(index) was not released")
      guard delivered else { return }
      latencies.append(written.duration(to: recorder.fixArrivals[index]))
    }
    #expect(recorder.fixes == expected)
    print("nmea-device fix latency (write to fix, epochTimeout 0.2 s): \(latencies)")
  }

  // MARK: Pipes and files

  @Test("A named pipe streams its fixes, counts garbage and ends at end of input")
  func namedPipe() async throws {
    let fifo = Self.temporaryPath("fifo")
    try #require(mkfifo(fifo, 0o600) == 0)
    defer { try? FileManager.default.removeItem(atPath: fifo) }
    var lines = Array(try Self.traceLines("Traces/demo/walk.nmea").prefix(200))
    lines.insert("this is not NMEA", at: 7)
    lines.insert("$GPRMC,100005.00,A,5937.4258,N,01744.1076,E,3.92,234.2,040526,,,A*00", at: 20)
    lines.insert(String(repeating: "x", count: 5000), at: 50)
    let text = lines.map { $0 + "\r\n" }.joined()
    let expected = try Self.readerFixes(text)
    #expect(expected.statistics.skippedTotal == 3)

    let source = try NMEADeviceSource(path: fifo, baud: 9600)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    #expect(recorder.statuses.first?.detail == "named pipe \(fifo)")
    let fd = open(fifo, O_WRONLY | O_CLOEXEC)
    try #require(fd >= 0)
    let writer = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    // In one write: chunks split an epoch between its RMC and its GGA, and a pause of the
    // whole suite longer than the 0.2 s quiet-line timeout then closed the epoch early.
    try writer.write(contentsOf: Data(text.utf8))
    try writer.close()

    #expect(await recorder.wait { $0.ended })
    #expect(recorder.error == nil)
    #expect(recorder.fixes == expected.fixes)
    #expect(recorder.statusKinds == [.connected, .ended])
    let counters = source.counters
    #expect(counters.statistics.skipped == expected.statistics.skipped)
    #expect(counters.statistics.skipped["not NMEA"] == 1)
    #expect(counters.statistics.skipped["bad checksum"] == 1)
    #expect(counters.statistics.skipped["line too long"] == 1)
    #expect(counters.connections == 1)
    #expect(!processHasOpenDescriptor(on: fifo))
  }

  @Test("Standard input (-) streams its fixes, ends at end of input and stays open")
  func standardInput() async throws {
    let lines = Array(try Self.traceLines("Traces/demo/walk.nmea").prefix(30))
    let text = lines.map { $0 + "\r\n" }.joined()
    let expected = try Self.readerFixes(text).fixes
    // Put a pipe in place of this process's standard input for the duration of the test.
    var fds: [Int32] = [-1, -1]
    try #require(pipe(&fds) == 0)
    let savedInput = dup(STDIN_FILENO)
    try #require(savedInput >= 0)
    try #require(dup2(fds[0], STDIN_FILENO) == STDIN_FILENO)
    close(fds[0])
    defer {
      dup2(savedInput, STDIN_FILENO)
      close(savedInput)
    }
    let writer = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)

    let source = try NMEADeviceSource(path: "-", baud: 9600)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    #expect(recorder.statuses.first?.detail == "standard input")
    for burst in Self.bursts(lines) {
      try writer.write(contentsOf: Data(burst.utf8))
      try await Task.sleep(for: .milliseconds(5))
    }
    try writer.close()
    #expect(await recorder.wait { $0.ended })
    #expect(recorder.error == nil)
    #expect(recorder.fixes == expected)
    #expect(recorder.statusKinds == [.connected, .ended])
    // The source never closes standard input: it is still a valid descriptor.
    #expect(fcntl(STDIN_FILENO, F_GETFD) >= 0)
  }

  @Test("No fix is reported once per episode, between the right fixes")
  func noFixEpisodes() async throws {
    func valid(_ second: Int) -> [String] {
      let time = String(format: "1000%02d.00", second)
      let latitude = String(format: "5937.%04d", 4000 + second)
      return [
        Self.sentence("$GPRMC,\(time),A,\(latitude),N,01744.1119,E,1.0,90.0,040526,,,A"),
        Self.sentence("$GPGGA,\(time),\(latitude),N,01744.1119,E,1,09,0.8,42.0,M,23.5,M,,"),
      ]
    }
    func noFix(_ second: Int) -> [String] {
      let time = String(format: "1000%02d.00", second)
      return [
        Self.sentence("$GPRMC,\(time),V,,,,,,,040526,,,N"),
        Self.sentence("$GPGGA,\(time),,,,,0,00,99.9,,M,,M,,"),
      ]
    }
    let lines =
      valid(0) + valid(1) + valid(2) + noFix(3) + noFix(4) + noFix(5) + valid(6) + noFix(7)
      + valid(8)
    let file = Self.temporaryPath("episodes.nmea")
    defer { try? FileManager.default.removeItem(atPath: file) }
    try Data(lines.map { $0 + "\r\n" }.joined().utf8).write(to: URL(fileURLWithPath: file))

    let source = try NMEADeviceSource(path: file)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.ended })
    let shape = recorder.reports.map { report -> String in
      switch report {
      case .fix(let fix): "fix " + String(UTCTime.format(fix.time).dropFirst(17).prefix(2))
      case .status(let status): status.kind.rawValue
      }
    }
    #expect(
      shape == [
        "connected", "fix 00", "fix 01", "fix 02", "no_fix", "fix 06", "no_fix", "fix 08",
        "ended",
      ])
    #expect(source.counters.noFixEpisodes == 2)
    #expect(recorder.statuses.first?.detail == "file \(file)")
  }

  // MARK: Configuration and errors

  @Test("An unsupported baud rate is an error that names it", arguments: [0, -9600, 1234, 14_400])
  func unsupportedBaud(rate: Int) throws {
    let error = #expect(throws: LiveSourceError.self) {
      try NMEADeviceSource(path: "/dev/ttyUSB0", baud: rate)
    }
    #expect(
      error?.description.hasPrefix("invalid baud rate for /dev/ttyUSB0 '\(rate)': use one of")
        == true)
  }

  @Test("Every standard rate from 4800 to 921600 is accepted")
  func supportedBauds() throws {
    #expect(
      NMEADeviceSource.supportedBaudRates == [
        4800, 9600, 19_200, 38_400, 57_600, 115_200, 230_400, 460_800, 921_600,
      ])
    for rate in NMEADeviceSource.supportedBaudRates {
      #expect(try NMEADeviceSource(path: "/dev/ttyUSB0", baud: rate).baud == rate)
    }
  }

  @Test("A missing device is retried with capped backoff, then given up at the limit")
  func missingDeviceRetries() async throws {
    let missing = Self.temporaryPath("no-such-device")
    let policy = try RetryPolicy(
      initialDelay: .milliseconds(20), maximumDelay: .milliseconds(40), maximumAttempts: 4)
    let source = try NMEADeviceSource(path: missing, baud: 9600, retryPolicy: policy)
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.ended })
    let error = try #require(recorder.error as? LiveSourceError)
    guard case .unreachable(let receiver, let attempts, let reason) = error else {
      Issue.record("not unreachable: \(error)")
      return
    }
    #expect(receiver == missing)
    #expect(attempts == 4)
    #expect(reason.contains("No such file or directory"))
    #expect(error.description.contains("unreachable after 4 attempts"))
    #expect(recorder.statusKinds == [.disconnected, .reconnecting, .reconnecting, .reconnecting])
    #expect(
      recorder.statuses.dropFirst().map(\.detail) == [
        "retry 1 in 0.02 s", "retry 2 in 0.04 s", "retry 3 in 0.04 s",
      ])
    #expect(source.counters.failedAttempts == 4)
  }

  @Test("A directory is not retried: the stream throws at once")
  func directoryFails() async throws {
    let source = try NMEADeviceSource(path: NSTemporaryDirectory())
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.ended })
    #expect(
      recorder.error as? LiveSourceError
        == .unusable(receiver: NSTemporaryDirectory(), reason: "is a directory"))
    #expect(recorder.reports.isEmpty)
  }
}
