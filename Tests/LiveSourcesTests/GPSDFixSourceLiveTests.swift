import Foundation
import MissionTracking
import ServiceTestSupport
import Testing
import TraceFormats

@testable import LiveSources

/// Short retries so fault tests run in well under a second per outage.
let fastRetry = try! RetryPolicy(
  initialDelay: .milliseconds(50), maximumDelay: .milliseconds(200), multiplier: 2)

func source(port: Int, retry: RetryPolicy = fastRetry) throws -> GPSDFixSource {
  try GPSDFixSource(host: "127.0.0.1", port: port, retryPolicy: retry)
}

/// Integration tests against a real gpsd on private loopback ports. Serialized: each one
/// starts its own gpsd, and the machine is small.
@Suite(.serialized, .enabled(if: GPSDHarness.isAvailable, "gpsd and socat must be installed"))
struct GPSDFixSourceLiveTests {
  // Logs whose lat/lon TPV times only move forward, chosen for variety: two TPVs per epoch
  // (haicom), 10 Hz with a 630 s gap (nmea-rtk), 2D only with untimed fixes (polarx2),
  // southern hemisphere and five constellations (ublox), bad checksums (gpsdf, garmin48),
  // AIS interleaved (ais-nmea), Galileo (quectel), gpsd's 1024-week rule (bu353: recorded
  // 2014, reported as 2034 by gpsd itself, so the live times equal the .chk's).
  static let monotonicLogs = [
    "haicom-305N.log", "nmea-rtk.log", "polarx2.log", "ublox-zed-f9p-nmea.log", "gpsdf.log",
    "garmin48.log", "ais-nmea.log", "quectelLC79D-1.log", "bu353-glonass.log",
  ]
  // Logs whose time goes back (humminbird: 13 s; bt451: two spliced captures, 52 min).
  static let otherLogs = ["humminbird-M37.log", "bt451.log"]

  // The reference logs are not in a user's clone; these tests skip without them.
  @Test(
    "Fixes match gpsd's own expected output for a reference log",
    .enabled(if: TestData.hasGPSDReference, "needs ../shared/reference/gpsd-nmea"),
    arguments: monotonicLogs + otherLogs)
  func fixesMatchGPSDsExpectedOutput(log: String) async throws {
    let logURL = TestData.gpsdReference.appendingPathComponent(log)
    let oracle = try ChkOracle(chk: logURL.appendingPathExtension("chk"))
    let monotonic = GPSDFixSourceLiveTests.monotonicLogs.contains(log)
    // For these logs the model is exactly "gpsd's last TPV for each distinct time".
    if monotonic { #expect(oracle.fixes.count == oracle.distinctTimes.count) }
    #expect(!oracle.fixes.isEmpty)

    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.startGPSD(port: port, feeding: logURL)
    let gpsd = try source(port: port)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }

    let complete = await recorder.wait { $0.fixes.count >= oracle.fixes.count }
    try await Task.sleep(for: .milliseconds(400))  // anything extra would arrive now
    task.cancel()
    #expect(complete, "got \(recorder.fixes.count) of \(oracle.fixes.count) fixes")

    let fixes = recorder.fixes
    #expect(fixes.count == oracle.fixes.count)
    #expect(fixes.map(\.time) == oracle.fixes.map(\.time))
    #expect(zip(fixes, fixes.dropFirst()).allSatisfy { $0.time < $1.time })
    for (fix, expected) in zip(fixes, oracle.fixes) {
      if monotonic { #expect(oracle.lastByTime[fix.time] == expected) }
      #expect(abs(fix.coordinate.latitude - expected.latitude) <= 1e-7, "\(fix.time)")
      #expect(abs(fix.coordinate.longitude - expected.longitude) <= 1e-7, "\(fix.time)")
      #expect(fix.mode.rawValue == expected.mode)
      if let altitude = expected.altitudeMSL {
        #expect(abs((fix.altitudeMeters ?? .nan) - altitude) <= 1e-3, "\(fix.time)")
      }
      #expect(fix.source == "gpsd")
    }
    #expect(recorder.statusKinds.first == .connected)
    #expect(!recorder.statusKinds.contains(.disconnected))
    // Every TPV gpsd sent is accounted for.
    let counters = gpsd.counters
    #expect(counters.garbageLines == 0)
    #expect(counters.statistics.skipped["no fix", default: 0] == oracle.noFixReports)
    #expect(counters.unusableReports == oracle.unusableReports)
    #expect(counters.staleFixesDropped == oracle.staleFixes)
    if monotonic { #expect(oracle.staleFixes == 0) } else { #expect(oracle.staleFixes > 0) }

    // Live = replay: decoding gpsd's own JSON output for this log (the .chk, as `gpspipe -w`
    // would print it) gives these very fixes, member for member.
    let recorded = try String(contentsOf: logURL.appendingPathExtension("chk"), encoding: .utf8)
    let json = recorded.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{") }
    let decoded = try TestData.decodeGPSDJSON(json.joined(separator: "\n") + "\n")
    #expect(TestData.admittedLive(decoded) == fixes)
  }

  @Test("The project's own trace is delivered exactly, one fix per epoch")
  func ownTraceIsDeliveredExactly() async throws {
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.startGPSD(port: port, feeding: TestData.shortTrace)
    let gpsd = try source(port: port)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }

    #expect(await recorder.wait { $0.fixes.count >= 40 })
    try await Task.sleep(for: .milliseconds(400))
    task.cancel()
    let fixes = recorder.fixes
    #expect(fixes.count == 40)
    for (k, fix) in fixes.enumerated() {
      let truth = TestData.shortTraceTruth(k)
      #expect(fix.time == truth.time)
      #expect(abs(fix.coordinate.latitude - truth.latitude) <= 1e-7)
      #expect(abs(fix.coordinate.longitude - truth.longitude) <= 1e-7)
      #expect(abs((fix.altitudeMeters ?? .nan) - truth.altitude) <= 1e-6)
      #expect(abs((fix.speedMetersPerSecond ?? .nan) - 5.0) <= 0.001)
      #expect(fix.courseDegrees == 0)
      #expect(fix.mode == .threeD)
      #expect(fix.horizontalAccuracyMeters != nil)
    }
    // The three no-fix epochs before the first fix are one episode.
    #expect(recorder.statusKinds == [.connected, .noFix])
  }

  @Test("No connection exists before the stream starts or after it stops")
  func noConnectionBeforeStartOrAfterStop() async throws {
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.startGPSD(port: port, feeding: TestData.shortTrace)
    let gpsd = try source(port: port)
    #expect(GPSDHarness.clients(ofGPSDOn: port) == 0)

    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.fixes.count >= 5 })
    #expect(GPSDHarness.clients(ofGPSDOn: port) == 1)

    // Closed within 1 s of the cancel, at the moment a thread of its own saw it (`FirstSeen`):
    // not when this task, resumed late on loaded cores, gets to look.
    let closing = FirstSeen.moment { GPSDHarness.clients(ofGPSDOn: port) == 0 }
    let stoppedAt = Date()
    task.cancel()
    await task.value
    let closed = try #require(await closing.value, "the connection to gpsd stayed open")
    #expect(closed.timeIntervalSince(stoppedAt) < 1, "\(closed.timeIntervalSince(stoppedAt)) s")
    // gpsd itself stays up and healthy: another client can still connect.
    #expect(GPSDHarness.sockets(localPort: port, state: .listen) > 0)
  }

  @Test("Stopping disables the watch and closes the socket; a device path is watched alone")
  func stoppingDisablesTheWatchAndCloses() async throws {
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    let received = try harness.captureOnce(port: port)
    let gpsd = try GPSDFixSource(
      host: "127.0.0.1", port: port, device: "/dev/ttyFAKE0", retryPolicy: fastRetry)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.contains(.connected) })
    #expect(await eventually { GPSDHarness.clients(ofGPSDOn: port) == 1 })
    task.cancel()
    await task.value
    #expect(await eventually { GPSDHarness.clients(ofGPSDOn: port) == 0 })
    // socat exits once the client has closed; then the file is complete.
    #expect(await eventually { GPSDHarness.sockets(localPort: port, state: .listen) == 0 })
    let commands = try String(contentsOf: received, encoding: .utf8)
    #expect(
      commands.hasPrefix(#"?WATCH={"enable":true,"json":true,"device":"/dev/ttyFAKE0"};"#),
      "\(commands)")
    #expect(commands.contains(#"?WATCH={"enable":false"#), "\(commands)")
    #expect(recorder.statuses.first?.detail.hasSuffix("watching /dev/ttyFAKE0") == true)
  }

  @Test("A gpsd killed and restarted mid-stream is reconnected without duplicate fixes")
  func killedGPSDIsReconnectedWithoutDuplicates() async throws {
    let lines = try TestData.shortTraceLines()
    // Header, 3 no-fix epochs (6 lines), then the first 20 fix epochs (40 lines).
    let firstHalf = lines.prefix(1 + 6 + 40).joined()
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.startGPSD(
      port: port,
      feeding: try harness.file(named: "first-half.nmea", contents: Data(firstHalf.utf8)))
    let gpsd = try source(port: port)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.fixes.count >= 20 })

    harness.killGPSD()
    #expect(await recorder.wait { $0.statusKinds.contains(.reconnecting) })
    #expect(GPSDHarness.clients(ofGPSDOn: port) == 0)
    // The restarted gpsd replays the whole trace: the first 20 epochs are stale.
    try harness.startGPSD(port: port, feeding: TestData.shortTrace)
    #expect(await recorder.wait { $0.fixes.count >= 40 })
    try await Task.sleep(for: .milliseconds(400))
    task.cancel()

    let fixes = recorder.fixes
    #expect(fixes.count == 40)
    #expect(fixes.map(\.time) == (0..<40).map { TestData.shortTraceTruth($0).time })
    for (k, fix) in fixes.enumerated() {
      #expect(abs(fix.coordinate.latitude - TestData.shortTraceTruth(k).latitude) <= 1e-7)
    }
    let kinds = recorder.statusKinds.filter { $0 != .noFix }
    let firstDisconnect = try #require(kinds.firstIndex(of: .disconnected))
    #expect(kinds[..<firstDisconnect] == [.connected])
    #expect(kinds[firstDisconnect + 1] == .reconnecting)
    #expect(Array(kinds.suffix(2)) == [.connected, .gap])
    #expect(kinds.filter { $0 == .connected }.count == 2)
    #expect(kinds.filter { $0 == .disconnected }.count == 1)
    // The gap comes right before the first fix after the restart.
    let reports = recorder.reports
    let gapIndex = try #require(
      reports.firstIndex { if case .status(let s) = $0 { s.kind == .gap } else { false } })
    guard case .fix(let resumed) = reports[gapIndex + 1] else {
      Issue.record("no fix after the gap")
      return
    }
    #expect(resumed.time == TestData.shortTraceTruth(20).time)
    let counters = gpsd.counters
    #expect(counters.connections == 2)
    #expect(counters.reconnects == 1)
    #expect(counters.staleFixesDropped >= 20)
    #expect(counters.fixesDelivered == 40)
  }

  @Test("gpsd not running at start: retries with backoff, then connects when it appears")
  func gpsdNotRunningAtStartIsRetried() async throws {
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    let gpsd = try source(port: port)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.filter { $0 == .reconnecting }.count >= 4 })

    let first = try #require(recorder.statuses.first)
    #expect(first.kind == .disconnected)
    #expect(first.detail.contains("cannot connect to gpsd at 127.0.0.1:\(port)"))
    #expect(first.detail.contains("libgps error -6"))
    // Backoff: 50, 100, 200 ms, then capped at 200 ms.
    let retries = recorder.statuses.filter { $0.kind == .reconnecting }.map(\.detail)
    #expect(
      retries.prefix(4) == [
        "retry 1 in 0.05 s", "retry 2 in 0.1 s", "retry 3 in 0.2 s", "retry 4 in 0.2 s",
      ])

    try harness.startGPSD(port: port, feeding: TestData.shortTrace)
    #expect(await recorder.wait { $0.fixes.count >= 40 })
    task.cancel()
    #expect(recorder.statusKinds.filter { $0 == .disconnected }.count == 1)
    #expect(recorder.statusKinds.contains(.connected))
    #expect(!recorder.statusKinds.contains(.gap))  // nothing was delivered before
    #expect(gpsd.counters.failedAttempts >= 3)
    #expect(gpsd.counters.connections == 1)
  }

  @Test("A retry limit ends the stream with an unreachable error")
  func retryLimitEndsTheStream() async throws {
    let port = GPSDHarness.freePort()
    let retry = try RetryPolicy(
      initialDelay: .milliseconds(10), maximumDelay: .milliseconds(20), maximumAttempts: 3)
    let gpsd = try source(port: port, retry: retry)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.ended })
    #expect(recorder.error.map { "\($0)" }?.contains("unreachable after 3 attempts") == true)
    #expect(recorder.statusKinds == [.disconnected, .reconnecting, .reconnecting])
  }

  @Test("A receiver without a fix gives one no_fix per episode and no positions")
  func noFixIsReportedOncePerEpisode() async throws {
    let lines = try TestData.shortTraceLines()
    var text = lines.prefix(1 + 6 + 6).joined()  // 3 no-fix epochs, then 3 fixes
    for second in 6...8 {  // no fix again
      let time = String(format: "1000%02d.00", second)
      text += TestData.sentence("GPRMC,\(time),V,,,,,,,010524,,,N")
      text += TestData.sentence("GPGGA,\(time),,,,,0,00,99.9,,M,,M,,")
    }
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.startGPSD(
      port: port, feeding: try harness.file(named: "episodes.nmea", contents: Data(text.utf8)))
    let gpsd = try source(port: port)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.statusKinds.filter { $0 == .noFix }.count >= 2 })
    try await Task.sleep(for: .milliseconds(400))
    task.cancel()
    #expect(recorder.fixes.count == 3)
    let kinds = recorder.reports.map { report -> String in
      switch report {
      case .fix: "fix"
      case .status(let status): status.kind.rawValue
      }
    }
    #expect(kinds == ["connected", "no_fix", "fix", "fix", "fix", "no_fix"])
    #expect(gpsd.counters.statistics.skipped["no fix", default: 0] >= 6)
  }

  @Test(
    "A receiver that never gets a fix (eXplorist 110) yields no positions",
    .enabled(if: TestData.hasGPSDReference, "needs ../shared/reference/gpsd-nmea"))
  func receiverThatNeverFixesYieldsNoPositions() async throws {
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.startGPSD(
      port: port, feeding: TestData.gpsdReference.appendingPathComponent("eXplorist110.log"))
    let gpsd = try source(port: port)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    // The .chk has 18 TPVs, all mode 1.
    #expect(
      await recorder.wait { _ in gpsd.counters.statistics.skipped["no fix", default: 0] >= 18 })
    try await Task.sleep(for: .milliseconds(300))
    task.cancel()
    #expect(recorder.fixes.isEmpty)
    #expect(recorder.statusKinds == [.connected, .noFix])
  }

  @Test("Garbage and over-long lines from a bad gpsd are skipped and counted")
  func garbageLinesAreSkippedAndCounted() async throws {
    var bytes = Data()
    func line(_ text: String) { bytes.append(contentsOf: Array(text.utf8) + [0x0D, 0x0A]) }
    line(#"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#)
    line("this is not json")
    line(#"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:00.000Z","lat":59.0,"lon":18.0}"#)
    line(String(repeating: "A", count: 100_000))  // over-long
    bytes.append(contentsOf: [0x00, 0x01, 0xFF, 0xFE, 0x7B, 0x0A])  // binary junk
    line(#"{"class":"TPV","mode":3,"lat":zz}"#)  // broken JSON
    line(#"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:01.000Z","lat":59.0001,"lon":18.0}"#)
    line(#"{"no":"class"}"#)
    line(#"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:01.500Z","lat":95.0,"lon":18.0}"#)
    line(#"{"class":"TPV","mode":2,"time":"2024-05-01T10:00:01.700Z"}"#)  // no position
    line("[")
    line(#"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:02.000Z","lat":59.0002,"lon":18.0}"#)
    line(#"{"class":"TPV","mode":3,"time":"2024-05-01T10:00:01.000Z","lat":59.0001,"lon":18.0}"#)

    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.serveOnce(try harness.file(named: "garbage.jsonl", contents: bytes), port: port)
    let gpsd = try source(port: port)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    // The fake gpsd hangs up after its last line.
    #expect(await recorder.wait { $0.statusKinds.contains(.disconnected) })
    task.cancel()

    #expect(recorder.fixes.map(\.coordinate.latitude) == [59.0, 59.0001, 59.0002])
    let counters = gpsd.counters
    #expect(counters.garbageLines == 6)
    #expect(counters.statistics.skipped["line too long"] == 1)
    #expect(counters.unusableReports == 2)
    #expect(counters.staleFixesDropped == 1)
    #expect(counters.statistics.recordsRead == 13)
    #expect(recorder.statusKinds.prefix(2) == [.connected, .disconnected])
  }
}
