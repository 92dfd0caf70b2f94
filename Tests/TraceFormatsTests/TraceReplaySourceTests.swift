import Foundation
import MissionTracking
import Testing
import TextRules

@testable import TraceFormats

@Suite("Trace replay source")
struct TraceReplaySourceTests {
  /// `count` one-second epochs of RMC.
  static func trace(count: Int, step: Double = 1) -> String {
    (0..<count).map { i in
      let seconds = Double(i) * step
      let t = String(format: "1200%02d.%02d", Int(seconds) % 60, Int(seconds * 100) % 100)
      let lat = String(format: "48%07.4f", 7.0 + Double(i) * 0.001)
      return sentence("$GPRMC,\(t),A,\(lat),N,01131.000,E,0.0,0.0,230394,,")
    }.joined(separator: "\n") + "\n"
  }

  static func collect(_ source: TraceReplaySource) async throws -> [SourceReport] {
    var reports: [SourceReport] = []
    for try await report in source.reports() { reports.append(report) }
    return reports
  }

  @Test func replayGivesEveryFixThenEndedAndIsDeterministic() async throws {
    let path = try TraceReaderTests.temporaryFile(TraceReplaySourceTests.trace(count: 50))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let source = TraceReplaySource(path: path)
    let first = try await TraceReplaySourceTests.collect(source)
    let second = try await TraceReplaySourceTests.collect(source)
    let fixes = first.compactMap { report -> Fix? in
      if case .fix(let fix) = report { return fix }
      return nil
    }
    #expect(fixes.count == 50)
    guard case .status(let status)? = first.last else {
      Issue.record("no ended status")
      return
    }
    #expect(status.kind == .ended)
    #expect(status.detail.contains("50 fixes"))
    #expect(Array(first.dropLast()) == Array(second.dropLast()))
    var direct: [Fix] = []
    try TraceReader(path: path).forEachBatch { direct += $0 }
    #expect(fixes == direct)
  }

  @Test func aRolloverCorrectionReachesTheReplayedFixes() async throws {
    // 1994-03-23 is before the pivot: one 1024-week era forward is 2013-11-06.
    let path = try TraceReaderTests.temporaryFile(TraceReplaySourceTests.trace(count: 3))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let pivot = UTCTime.date(year: 2010, month: 1, day: 1, secondsOfDay: 0)
    let reports = try await TraceReplaySourceTests.collect(
      TraceReplaySource(path: path, rollover: NMEAWeekRollover(pivot: pivot)))
    let times = reports.compactMap { report -> String? in
      if case .fix(let fix) = report { return iso(fix) }
      return nil
    }
    #expect(times.first == "2013-11-06T12:00:00.000Z")
    #expect(times.count == 3)
  }

  @Test func strictReplayDeliversEveryFixBeforeTheBadRecord() async throws {
    let bad = "$GPRMC,120009,A,4807.038,N,01131.000,E,0.0,0.0,230394,,*00\n"
    let path = try TraceReaderTests.temporaryFile(
      TraceReplaySourceTests.trace(count: 5) + bad + TraceReplaySourceTests.trace(count: 2))
    defer { try? FileManager.default.removeItem(atPath: path) }
    var fixes = 0
    var failure: (any Error)?
    do {
      for try await report in TraceReplaySource(path: path, strict: true).reports() {
        if case .fix = report { fixes += 1 }
      }
    } catch {
      failure = error
    }
    #expect(fixes == 5)
    #expect((failure as? TraceError)?.reason.hasPrefix("bad checksum") == true)
  }

  @Test func pacedReplayFollowsTheTraceClockTimesTheSpeed() async throws {
    // 5 epochs 0.2 s apart = 0.8 s of trace; at speed 4 that is about 0.2 s.
    let path = try TraceReaderTests.temporaryFile(TraceReplaySourceTests.trace(count: 5, step: 0.2))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let clock = ContinuousClock()
    let start = clock.now
    let reports = try await TraceReplaySourceTests.collect(
      TraceReplaySource(path: path, pacing: .realTime(speed: 4)))
    let elapsed = clock.now - start
    #expect(reports.count == 6)
    #expect(elapsed >= .milliseconds(190))
  }

  @Test func stoppingTheIterationStopsReading() async throws {
    let path = try TraceReaderTests.temporaryFile(
      TraceReplaySourceTests.trace(count: 100, step: 0.5))
    defer { try? FileManager.default.removeItem(atPath: path) }
    let source = TraceReplaySource(path: path, pacing: .realTime(speed: 1))
    let task = Task {
      var count = 0
      for try await _ in source.reports() { count += 1 }
      return count
    }
    try await Task.sleep(for: .milliseconds(300))
    task.cancel()
    let count = try await task.value
    #expect(count < 10)
  }

  @Test func aMissingTraceFailsTheStream() async {
    await #expect(throws: TraceError.self) {
      _ = try await TraceReplaySourceTests.collect(TraceReplaySource(path: "/nonexistent.nmea"))
    }
  }

  @Test func strictReplayThrowsAtTheFirstBadRecord() async throws {
    let text = TraceReplaySourceTests.trace(count: 3) + "$GPRMC,bad*00\n"
    let path = try TraceReaderTests.temporaryFile(text)
    defer { try? FileManager.default.removeItem(atPath: path) }
    await #expect(throws: TraceError.self) {
      _ = try await TraceReplaySourceTests.collect(TraceReplaySource(path: path, strict: true))
    }
  }
}
