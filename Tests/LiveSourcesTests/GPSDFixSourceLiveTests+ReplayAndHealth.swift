import Foundation
import Testing
import TraceFormats

@testable import LiveSources
@testable import MissionTracking

/// Live = replay against a real gpsd, and the receiver-health statuses (`silent`, gpsd's
/// `DEVICE` deactivation) with a feeder that pauses and a gpsd control socket.
extension GPSDFixSourceLiveTests {
  /// A gpsd source with explicit timing, and a transcript of every byte it reads.
  static func recordingSource(
    port: Int, silence: Duration? = nil, transcript: LiveTranscript? = nil
  ) throws -> GPSDFixSource {
    try GPSDFixSource(
      host: "127.0.0.1", port: port, device: nil, retryPolicy: fastRetry,
      epochTimeout: .milliseconds(300), silenceTimeout: silence,
      pollInterval: .milliseconds(50), transcript: transcript)
  }

  /// The statuses and fixes in arrival order, fixes as `fix`.
  static func shape(_ reports: [SourceReport]) -> [String] {
    reports.map { report in
      switch report {
      case .fix: "fix"
      case .status(let status): status.kind.rawValue
      }
    }
  }

  /// Every gpsd reference log (all 25), for the live = replay check.
  static let allReferenceLogs: [String] = {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: TestData.gpsdReference.path))
    return (names ?? []).filter { $0.hasSuffix(".log") }.sorted()
  }()

  @Test(
    "Live fixes equal `missiontrack decode` of the JSON lines the client received",
    .timeLimit(.minutes(1)))
  func liveFixesEqualDecodeOfWhatTheClientReceived() async throws {
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.startGPSD(port: port, feeding: TestData.shortTrace)
    let transcript = LiveTranscript()
    let gpsd = try Self.recordingSource(port: port, transcript: transcript)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.fixes.count >= 40 })
    try await Task.sleep(for: .milliseconds(400))
    task.cancel()
    await task.value

    let received = transcript.recorded
    #expect(received.starts(with: Array(#"{"class":"VERSION""#.utf8)))
    let live = recorder.fixes
    #expect(live.count == 40)
    // The same decoder in the library...
    let decoded = try TestData.decodeTrace(received)
    #expect(decoded == live)
    // ...and in the shipped command, byte for byte as it prints fixes.
    guard let tool = TrackCommandLiveTests.tool else { return }
    let file = try harness.file(named: "received.jsonl", contents: Data(received))
    let printed = try TestData.run(tool, ["decode", file.path])
    var expected = ""
    FixJSONLinesWriter.append(live, to: &expected)
    #expect(printed == expected)
  }

  @Test(
    "Every reference log: live fixes equal decode of gpsd's own JSON output (.chk)",
    .enabled(if: TestData.hasGPSDReference, "needs ../shared/reference/gpsd-nmea"),
    arguments: allReferenceLogs)
  func everyReferenceLogLiveEqualsDecode(log: String) async throws {
    let logURL = TestData.gpsdReference.appendingPathComponent(log)
    let chk = try String(contentsOf: logURL.appendingPathExtension("chk"), encoding: .utf8)
    let json = chk.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{") }
    let expected = TestData.admittedLive(
      try TestData.decodeGPSDJSON(json.joined(separator: "\n") + "\n"))

    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.startGPSD(port: port, feeding: logURL)
    let transcript = LiveTranscript()
    let gpsd = try Self.recordingSource(port: port, transcript: transcript)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    // Done when gpsd has sent the .chk's reports and the last fix is out of the epoch
    // merge. gpsd's answer to the watch (VERSION, DEVICES, WATCH, DEVICE) does not count:
    // on a log of three lines it alone made three lines, before gpsd had read the log.
    // (`recordsRead` first: cheap, it spares scanning the transcript until near the end.)
    let complete = await recorder.wait(upTo: .seconds(120)) {
      $0.fixes.count >= expected.count
        && gpsd.counters.statistics.recordsRead >= json.count
        && Self.logReportLines(transcript.recorded) >= json.count
    }
    // Time for a fix too many to arrive.
    try await Task.sleep(for: .milliseconds(400))
    task.cancel()
    let lines = Self.logReportLines(transcript.recorded)
    #expect(complete, "\(lines) of \(json.count) lines, \(recorder.fixes.count) fixes")
    #expect(recorder.fixes == expected)
    #expect(gpsd.counters.garbageLines == 0)
  }

  /// How many lines of `received` are reports gpsd decoded from its log (TPV, SKY, AIS...),
  /// the lines a `.chk` holds, as opposed to its answer to the watch (VERSION, DEVICES,
  /// WATCH, DEVICE).
  static func logReportLines(_ received: [UInt8]) -> Int {
    let session = ["VERSION", "DEVICES", "WATCH", "DEVICE"].map {
      Array(#"{"class":"\#($0)""#.utf8)
    }
    return received.split(separator: UInt8(ascii: "\n")).filter { line in
      line.first == UInt8(ascii: "{") && !session.contains { line.starts(with: $0) }
    }.count
  }

  @Test("A receiver that falls silent gives one silent status, then connected when it resumes")
  func silentReceiverIsReportedOnceAndResumes() async throws {
    let lines = try TestData.shortTraceLines()
    // Header, 3 no-fix epochs (6 lines), 10 fix epochs; then a pause; then the other 30.
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let first = try harness.file(
      named: "first.nmea", contents: Data(lines.prefix(1 + 6 + 20).joined().utf8))
    let rest = try harness.file(
      named: "rest.nmea", contents: Data(lines.dropFirst(1 + 6 + 20).joined().utf8))
    let feed = GPSDHarness.freePort()
    try harness.servePaced([first, rest], pause: 2.5, port: feed)
    let port = GPSDHarness.freePort()
    try harness.startGPSD(port: port, devices: ["tcp://127.0.0.1:\(feed)"])
    let gpsd = try Self.recordingSource(port: port, silence: .milliseconds(1000))
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.fixes.count >= 40 })
    try await Task.sleep(for: .milliseconds(300))
    task.cancel()

    let fixes = recorder.fixes
    #expect(fixes.map(\.time) == (0..<40).map { TestData.shortTraceTruth($0).time })
    // Up to the last fix: the feeder's final pause may add a second `silent` after it.
    var shape = Self.shape(recorder.reports)
    while let last = shape.last, last != "fix" { shape.removeLast() }
    #expect(
      shape
        == ["connected", "no_fix"] + Array(repeating: "fix", count: 10) + ["silent", "connected"]
        + Array(repeating: "fix", count: 30))
    let silent = try #require(recorder.statuses.first { $0.kind == .silent })
    #expect(silent.detail.hasPrefix("no reports from gpsd at 127.0.0.1:\(port) for 1"))
    let resumed = try #require(recorder.statuses.last { $0.kind == .connected })
    #expect(resumed.detail.contains("reports resumed after"))
    #expect(gpsd.counters.silentEpisodes >= 1)
    #expect(gpsd.counters.connections == 1)
  }

  @Test("gpsd's DEVICE with activated 0 is disconnected, and the connection stays up")
  func deactivatedDeviceIsDisconnected() async throws {
    let lines = try TestData.shortTraceLines()
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let firstHalf = try harness.file(
      named: "first-half.nmea", contents: Data(lines.prefix(1 + 6 + 40).joined().utf8))
    let feed = GPSDHarness.freePort()
    try harness.servePaced([firstHalf], pause: 0, port: feed)
    let device = "tcp://127.0.0.1:\(feed)"
    let port = GPSDHarness.freePort()
    try harness.startGPSD(port: port, devices: [device], controlSocket: true)
    let gpsd = try Self.recordingSource(port: port, silence: .milliseconds(500))
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    #expect(await recorder.wait { $0.fixes.count >= 20 })

    // The receiver goes away inside gpsd (as when udev removes an unplugged USB receiver).
    #expect(try harness.control("-\(device)") == "OK")
    #expect(await recorder.wait { $0.statusKinds.contains(.disconnected) })
    let lost = try #require(recorder.statuses.first { $0.kind == .disconnected })
    #expect(lost.detail == "gpsd at 127.0.0.1:\(port): gpsd deactivated \(device)")
    // The connection to gpsd stays up: no retry, still one client; and a receiver that is
    // gone is not also reported as silent.
    try await Task.sleep(for: .seconds(1))
    #expect(GPSDHarness.clients(ofGPSDOn: port) == 1)
    task.cancel()
    #expect(recorder.fixes.count == 20)
    // The feeder is done after its 20 fixes, so `silent` may come before the removal (and the
    // DEVICE line then says `disconnected`, not `connected`); never after it.
    let kinds = recorder.statusKinds
    let removal = try #require(kinds.firstIndex(of: .disconnected))
    #expect(kinds[..<removal].filter { $0 != .silent } == [.connected, .noFix])
    #expect(kinds[(removal + 1)...].isEmpty, "\(kinds)")
    #expect(gpsd.counters.receiverLosses == 1)
  }

  @Test("A receiver gpsd reactivates is connected again, with the gap before its next fix")
  func reactivatedDeviceIsConnectedWithAGap() async throws {
    func tpv(_ second: Int) -> String {
      #"{"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2024-05-01T10:00:0\#(second).000Z","lat":59.0\#(second),"lon":18.0}"#
    }
    let text = [
      #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#,
      #"{"class":"DEVICE","path":"/dev/ttyUSB0","driver":"NMEA0183","activated":"2024-05-01T10:00:00.000Z"}"#,
      tpv(1), tpv(2),
      #"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":0}"#,
      #"{"class":"DEVICE","path":"/dev/ttyUSB0","activated":"2024-05-01T10:00:09.000Z"}"#,
      tpv(2), tpv(5),
    ].map { $0 + "\r\n" }.joined()
    let harness = try GPSDHarness()
    defer { harness.stopAll() }
    let port = GPSDHarness.freePort()
    try harness.serveOnce(
      try harness.file(named: "replug.jsonl", contents: Data(text.utf8)), port: port)
    let gpsd = try Self.recordingSource(port: port)
    let recorder = SourceRecorder()
    let task = recorder.consume(gpsd.reports())
    defer { task.cancel() }
    // The fake gpsd hangs up after its last line.
    #expect(await recorder.wait { $0.statusKinds.filter { $0 == .disconnected }.count >= 2 })
    task.cancel()
    #expect(
      Self.shape(recorder.reports).prefix(8) == [
        "connected", "fix", "fix", "disconnected", "connected", "gap", "fix", "disconnected",
      ])
    #expect(recorder.fixes.map(\.coordinate.latitude) == [59.01, 59.02, 59.05])
    #expect(recorder.statuses[2].detail.hasSuffix(": gpsd activated /dev/ttyUSB0"))
    #expect(recorder.statuses[3].detail.hasPrefix("no fixes for 3 s of fix time"))
    #expect(gpsd.counters.staleFixesDropped == 1)
  }
}
