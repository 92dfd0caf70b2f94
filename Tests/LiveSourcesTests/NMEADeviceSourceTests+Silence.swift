import Foundation
import MissionTracking
import Testing

@testable import LiveSources

/// A receiver that stops talking while its device stays open: one `silent` status, then
/// `connected` when it speaks again, and no fix lost or reordered around them.
extension NMEADeviceSourceTests {
  /// The reports in arrival order, fixes as `fix`, up to the last fix.
  static func shapeUpToLastFix(_ reports: [SourceReport]) -> [String] {
    var shape = reports.map { report in
      switch report {
      case .fix: "fix"
      case .status(let status): status.kind.rawValue
      }
    }
    while let last = shape.last, last != "fix" { shape.removeLast() }
    return shape
  }

  /// The reports from the first fix on. Before it, a loaded machine may leave the source
  /// waiting longer than the silence timeout for the test's first write, and the source then
  /// rightly reports `silent` and `connected` once more: the prefix is checked apart.
  static func fromFirstFix(_ shape: [String]) -> (prefix: [String], rest: [String]) {
    let first = shape.firstIndex(of: "fix") ?? shape.endIndex
    return (Array(shape[..<first]), Array(shape[first...]))
  }

  /// Checks that `recorder` saw `total` fixes with one `silent`, `connected` pair after the
  /// first `firstFixes` of them (and possibly one before the first fix, see `fromFirstFix`).
  static func expectOneSilence(
    in recorder: SourceRecorder, after firstFixes: Int, of total: Int,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let (prefix, afterFirstFix) = fromFirstFix(shapeUpToLastFix(recorder.reports))
    let startPrefixes = [["connected"], ["connected", "silent", "connected"]]
    #expect(startPrefixes.contains(prefix), "\(prefix)", sourceLocation: sourceLocation)
    #expect(
      afterFirstFix
        == Array(repeating: "fix", count: firstFixes) + ["silent", "connected"]
        + Array(repeating: "fix", count: total - firstFixes), sourceLocation: sourceLocation)
  }

  @Test(
    "A pseudo-terminal that falls silent gives one silent status, then connected",
    .enabled(if: PseudoTerminalPair.isAvailable, "socat is not installed"))
  func silentTerminalIsReportedOnceAndResumes() async throws {
    let pair = try PseudoTerminalPair()
    defer { pair.stop() }
    let lines = Array(try Self.traceLines("Traces/demo/walk.nmea").prefix(40))
    let bursts = Self.bursts(lines)
    let half = bursts.count / 2
    let expected = try Self.readerFixes(lines.map { $0 + "\r\n" }.joined()).fixes
    let firstFixes = try Self.readerFixes(bursts[..<half].joined()).fixes.count

    let source = try NMEADeviceSource(
      path: pair.readerPath, baud: 9600, silenceTimeout: .milliseconds(1500))
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    let writer = try pair.openWriter()
    try await Self.writePaced(Array(bursts[..<half]), to: writer, seed: 21)
    #expect(await recorder.wait { $0.fixes.count >= firstFixes })
    // The silences before the first fix (see `fromFirstFix`): counted from the reports, not
    // read now, since a paused suite may already have seen the pause's silence by now.
    let silentBefore = Self.fromFirstFix(Self.shapeUpToLastFix(recorder.reports)).prefix
      .filter { $0 == "silent" }.count
    #expect(await recorder.wait { $0.statusKinds.filter { $0 == .silent }.count > silentBefore })
    try await Self.writePaced(Array(bursts[half...]), to: writer, seed: 22)
    #expect(await recorder.wait { $0.fixes.count >= expected.count })
    task.cancel()
    await task.value

    #expect(recorder.fixes == expected)
    Self.expectOneSilence(in: recorder, after: firstFixes, of: expected.count)
    let silent = try #require(recorder.statuses.last { $0.kind == .silent })
    #expect(silent.detail.hasPrefix("no reports from \(pair.readerPath) for 1.5"))
    // The counter agrees with the statuses (the pause's one and those before the first fix,
    // checked above), and with the one a test resumed 1.5 s after the last fix may also get
    // for the quiet line after it: not `silentBefore + 1` whenever the test is late.
    #expect(
      source.counters.silentEpisodes == recorder.statusKinds.filter { $0 == .silent }.count,
      "silent before the first fix: \(silentBefore)")
    #expect(source.counters.connections == 1)
  }

  @Test("A named pipe whose writer pauses gives silent, connected, then ended")
  func silentPipeIsReportedOnceAndResumes() async throws {
    let fifo = Self.temporaryPath("silent-fifo")
    try #require(mkfifo(fifo, 0o600) == 0)
    defer { try? FileManager.default.removeItem(atPath: fifo) }
    let lines = Array(try Self.traceLines("Traces/demo/walk.nmea").prefix(30))
    let first = lines.prefix(14).map { $0 + "\r\n" }.joined()
    let rest = lines.dropFirst(14).map { $0 + "\r\n" }.joined()
    let expected = try Self.readerFixes(first + rest).fixes

    let firstFixes = try Self.readerFixes(first).fixes.count

    let source = try NMEADeviceSource(path: fifo, silenceTimeout: .milliseconds(800))
    let recorder = SourceRecorder()
    let task = recorder.consume(source.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    let fd = open(fifo, O_WRONLY | O_CLOEXEC)
    try #require(fd >= 0)
    let writer = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    try writer.write(contentsOf: Data(first.utf8))
    #expect(await recorder.wait { $0.fixes.count >= firstFixes })
    // Counted from the reports before the first fix, not read now: a test resumed late may
    // already have the pause's silence, and would then wait for a second one in vain.
    let silentBefore = Self.fromFirstFix(Self.shapeUpToLastFix(recorder.reports)).prefix
      .filter { $0 == "silent" }.count
    #expect(await recorder.wait { $0.statusKinds.filter { $0 == .silent }.count > silentBefore })
    try writer.write(contentsOf: Data(rest.utf8))
    try writer.close()
    #expect(await recorder.wait { $0.ended })

    #expect(recorder.error == nil)
    #expect(recorder.fixes == expected)
    Self.expectOneSilence(in: recorder, after: firstFixes, of: expected.count)
    #expect(recorder.statusKinds.last == .ended)
    let resumed = try #require(recorder.statuses.last { $0.kind == .connected })
    #expect(resumed.detail.hasPrefix("\(fifo): reports resumed after"))
  }
}
